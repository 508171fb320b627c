"""POST /v1/games (no auth; a refused creation stores nothing). Its Idempotency-Key:
test_idempotency_keys.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.hostile.harness import (
    GAMES,
    JSON_CT,
    NEW_GAME,
    TWO,
    Case,
    CaseRunner,
    big_body,
    case,
    deep_array,
    raw,
    v422,
)


def _create(**fields: Any) -> dict[str, Any]:
    return {**NEW_GAME, **fields}


def _names(*names: str) -> dict[str, Any]:
    return {"players": [{"name": n} for n in names]}


NAMES_LOC = ("body", "players", 1, "name")

CASES = [
    # players
    v422("create-1-player", "POST", GAMES, ("body", "players"), body=_names("Solo")),
    v422("create-6-players", "POST", GAMES, ("body", "players"), body=_names(*"ABCDEF")),
    # R-PLY-1: the fifth seat comes with Houses of Renaissance, which the base tiles lack
    v422("create-5-players-base-only", "POST", GAMES, ("body", "players"), body=_names(*"ABCDE")),
    v422("create-0-players", "POST", GAMES, ("body", "players"), body={"players": []}),
    v422("create-players-missing", "POST", GAMES, ("body", "players"), body={"seed": 1}),
    v422(
        "create-players-object", "POST", GAMES, ("body", "players"), body={"players": {"name": "A"}}
    ),
    v422(
        "create-player-string",
        "POST",
        GAMES,
        ("body", "players", 0),
        body={"players": ["Anna", "Bruno"]},
    ),
    # player names
    # Names that hide what they are: invisible, format and bidi-control characters, or no
    # letter or digit at all (issue 8); "An\u200bna" would sit beside "Anna" looking the same.
    v422(
        "create-name-zero-width-space", "POST", GAMES, NAMES_LOC, body=_names("Anna", "An\u200bna")
    ),
    v422("create-name-only-zero-width", "POST", GAMES, NAMES_LOC, body=_names("Anna", "\u200b")),
    v422("create-name-bidi-override", "POST", GAMES, NAMES_LOC, body=_names("Anna", "\u202eanna")),
    v422("create-name-bidi-isolate", "POST", GAMES, NAMES_LOC, body=_names("Anna", "Bo\u2066b")),
    v422(
        "create-name-zwj-emoji",
        "POST",
        GAMES,
        NAMES_LOC,
        body=_names("A", "\U0001f469\u200d\U0001f467"),
    ),
    v422("create-name-hangul-filler", "POST", GAMES, NAMES_LOC, body=_names("Anna", "\u3164")),
    v422("create-name-soft-hyphen", "POST", GAMES, NAMES_LOC, body=_names("Anna", "An\u00adna")),
    v422("create-name-punctuation-only", "POST", GAMES, NAMES_LOC, body=_names("Anna", "!!!")),
    v422("create-name-emoji-only", "POST", GAMES, NAMES_LOC, body=_names("Anna", "\U0001f981")),
    v422(
        "create-name-fullwidth-variant", "POST", GAMES, NAMES_LOC, body=_names("Anna", "\uff21nna")
    ),
    # JSON that reads two ways: a repeated key, or a body that is not UTF-8 (issue 8)
    raw(
        "create-json-duplicate-key",
        "POST",
        GAMES,
        b'{"players": [{"name": "A"}, {"name": "B"}], "seed": 1, "seed": 2}',
        ("body", 0),
    ),
    raw(
        "create-json-duplicate-nested-key",
        "POST",
        GAMES,
        b'{"players": [{"name": "A", "name": "Z"}, {"name": "B"}]}',
        ("body", 0),
    ),
    raw(
        "create-json-utf16",
        "POST",
        GAMES,
        '{"players": [{"name": "A"}, {"name": "B"}]}'.encode("utf-16"),
        ("body", 0),
    ),
    raw(
        "create-json-utf32",
        "POST",
        GAMES,
        '{"players": [{"name": "A"}, {"name": "B"}]}'.encode("utf-32"),
        ("body", 0),
    ),
    # Names that pass for another's (UTS #39), found by an attacker's review.
    v422("create-name-mixed-script", "POST", GAMES, NAMES_LOC, body=_names("Anna", "\u0410nna")),
    v422(
        "create-name-whole-script-lookalike",
        "POST",
        GAMES,
        NAMES_LOC,
        body=_names("Aoo", "\u0410\u043e\u043e"),
    ),
    v422("create-name-variation-selector", "POST", GAMES, NAMES_LOC, body=_names("A", "B\ufe0f")),
    v422(
        "create-name-stacked-marks", "POST", GAMES, NAMES_LOC, body=_names("A", "Z" + "\u0301" * 40)
    ),
    v422("create-name-duplicate", "POST", GAMES, NAMES_LOC, body=_names("Anna", "Anna")),
    v422("create-name-case-variant", "POST", GAMES, NAMES_LOC, body=_names("Anna", "aNNA")),
    v422(
        "create-name-casefold-variant", "POST", GAMES, NAMES_LOC, body=_names("Straße", "STRASSE")
    ),
    v422("create-name-padded-duplicate", "POST", GAMES, NAMES_LOC, body=_names("Anna", "  Anna ")),
    v422(
        "create-name-nfd-duplicate",
        "POST",
        GAMES,
        NAMES_LOC,
        body=_names("José", "Jose\u0301"),
    ),
    v422("create-name-empty", "POST", GAMES, ("body", "players", 0, "name"), body=_names("", "B")),
    v422(
        "create-name-spaces", "POST", GAMES, ("body", "players", 0, "name"), body=_names("   ", "B")
    ),
    v422(
        "create-name-unicode-spaces",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body=_names("\u00a0\u2003\u3000", "B"),
    ),
    v422(
        "create-name-nul",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body=_names("An\x00na", "B"),
    ),
    v422(
        "create-name-newline",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body=_names("An\nna", "B"),
    ),
    v422(
        "create-name-escape",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body=_names("\x1b[31mAnna", "B"),
    ),
    v422(
        "create-name-del",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body=_names("Anna\x7f", "B"),
    ),
    v422(
        "create-name-c1-csi",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body=_names("An\x9bna", "B"),
    ),
    v422(
        "create-name-c1-nel",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body=_names("An\x85na", "B"),
    ),
    v422(
        "create-name-51", "POST", GAMES, ("body", "players", 0, "name"), body=_names("n" * 51, "B")
    ),
    v422(
        "create-name-60000",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body=_names("n" * 60_000, "B"),
    ),
    v422(
        "create-name-int",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body={"players": [{"name": 1}, {"name": "B"}]},
    ),
    v422(
        "create-name-null",
        "POST",
        GAMES,
        ("body", "players", 0, "name"),
        body={"players": [{"name": None}, {"name": "B"}]},
    ),
    # a player's fields and leaders
    v422(
        "create-player-unknown-field",
        "POST",
        GAMES,
        ("body", "players", 0, "colour"),
        body={"players": [{"name": "A", "colour": "red"}, {"name": "B"}]},
    ),
    v422(
        "create-leader-unknown",
        "POST",
        GAMES,
        ("body", "players", 0, "leaders", 0),
        body={"players": [{"name": "A", "leaders": ["pope"]}, {"name": "B"}]},
    ),
    v422(
        "create-leader-twice",
        "POST",
        GAMES,
        ("body", "players", 0, "leaders"),
        body={"players": [{"name": "A", "leaders": ["sisto_iv", "sisto_iv"]}, {"name": "B"}]},
    ),
    # expansions
    case(
        "create-expansion-unknown",
        "POST",
        GAMES,
        422,
        "unknown-expansion",
        ("body", "expansions", 0),
        body=_create(expansions=["nope"]),
    ),
    case(
        "create-expansion-unknown-after-base",
        "POST",
        GAMES,
        422,
        "unknown-expansion",
        ("body", "expansions", 1),
        body=_create(expansions=["base", "../../etc/passwd"]),
    ),
    v422(
        "create-expansions-empty",
        "POST",
        GAMES,
        ("body", "expansions"),
        body=_create(expansions=[]),
    ),
    v422(
        "create-expansions-twice",
        "POST",
        GAMES,
        ("body", "expansions"),
        body=_create(expansions=["base", "base"]),
    ),
    v422(
        "create-expansions-string",
        "POST",
        GAMES,
        ("body", "expansions"),
        body=_create(expansions="base"),
    ),
    # seed
    v422("create-seed-negative", "POST", GAMES, ("body", "seed"), body=_create(seed=-1)),
    v422("create-seed-2**63", "POST", GAMES, ("body", "seed"), body=_create(seed=2**63)),
    v422("create-seed-2**53", "POST", GAMES, ("body", "seed"), body=_create(seed=2**53)),
    v422("create-seed-10**100", "POST", GAMES, ("body", "seed"), body=_create(seed=10**100)),
    v422("create-seed-float", "POST", GAMES, ("body", "seed"), body=_create(seed=7.0)),
    v422("create-seed-string", "POST", GAMES, ("body", "seed"), body=_create(seed="7")),
    v422("create-seed-bool", "POST", GAMES, ("body", "seed"), body=_create(seed=False)),
    # tiles
    v422(
        "create-tiles-and-seed",
        "POST",
        GAMES,
        ("body", "tiles"),
        body=_create(tiles={"1": "I-1", "2": "II-1", "3": "III-1"}),
    ),
    v422(
        "create-tile-wrong-period",
        "POST",
        GAMES,
        ("body", "tiles", "1"),
        body={"players": TWO, "tiles": {"1": "II-1", "2": "II-2", "3": "III-1"}},
    ),
    v422(
        "create-tile-unknown",
        "POST",
        GAMES,
        ("body", "tiles", "3"),
        body={"players": TWO, "tiles": {"1": "I-1", "2": "II-1", "3": "III-8"}},
    ),
    v422(
        "create-tile-missing-period",
        "POST",
        GAMES,
        ("body", "tiles", "3"),
        body={"players": TWO, "tiles": {"1": "I-1", "2": "II-1"}},
    ),
    v422(
        "create-tile-period-4",
        "POST",
        GAMES,
        ("body", "tiles", "4"),
        body={"players": TWO, "tiles": {"1": "I-1", "2": "II-1", "3": "III-1", "4": "III-2"}},
    ),
    v422(
        "create-tile-int",
        "POST",
        GAMES,
        ("body", "tiles", "2"),
        body={"players": TWO, "tiles": {"1": "I-1", "2": 2, "3": "III-1"}},
    ),
    v422(
        "create-tiles-array",
        "POST",
        GAMES,
        ("body", "tiles"),
        body={"players": TWO, "tiles": ["I-1", "II-1", "III-1"]},
    ),
    # players_enter_faith
    v422(
        "create-enter-faith-string",
        "POST",
        GAMES,
        ("body", "players_enter_faith"),
        body=_create(players_enter_faith="true"),
    ),
    v422(
        "create-enter-faith-int",
        "POST",
        GAMES,
        ("body", "players_enter_faith"),
        body=_create(players_enter_faith=1),
    ),
    # the body as a whole: unknown fields, malformed JSON, content types, size
    v422(
        "create-unknown-field",
        "POST",
        GAMES,
        ("body", "host_token"),
        body=_create(host_token="mine"),
    ),
    v422("create-body-array", "POST", GAMES, ("body",), body=[_create()]),
    raw("create-json-truncated", "POST", GAMES, b'{"players": [{"name": "A"', ("body", 25)),
    raw(
        "create-json-infinity",
        "POST",
        GAMES,
        b'{"players": [], "seed": Infinity}',
        ("body", "seed"),
    ),
    raw("create-json-empty", "POST", GAMES, b"", ("body",)),
    raw("create-deep-array", "POST", GAMES, deep_array(), None),
    case(
        "create-form-encoded",
        "POST",
        GAMES,
        415,
        "unsupported-media-type",
        content=b"players=Anna&players=Bruno",
        headers={"content-type": "application/x-www-form-urlencoded"},
    ),
    case(
        "create-too-large",
        "POST",
        GAMES,
        413,
        "payload-too-large",
        content=big_body(),
        headers=JSON_CT,
    ),
    case(
        "create-too-large-chunked",
        "POST",
        GAMES,
        413,
        "payload-too-large",
        stream=big_body(),
        headers=JSON_CT,
    ),
    # methods /v1/games does not have
    case("games-list-get", "GET", GAMES, 405, "method-not-allowed"),
    case("games-delete", "DELETE", GAMES, 405, "method-not-allowed"),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_stateless(run_stateless_case: CaseRunner, c: Case) -> None:
    """Game creation: a problem, and nothing stored."""
    await run_stateless_case(c)
