"""The Idempotency-Key header of the two endpoints that take one: POST /v1/games and POST
/v1/games/{id}/reports/{period}/resolution."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import GAMES, NEW_GAME, Case, CaseRunner, G, case

CREATION_CASES = [
    # A key must carry at least 128 bits (a UUID, or 22+ base64url characters): a guessable
    # key would let a stranger replay another client's answer, tokens included.
    *[
        case(
            f"create-idempotency-key-weak-{name}",
            "POST",
            GAMES,
            422,
            "validation-error",
            ("header", "Idempotency-Key"),
            body=NEW_GAME,
            headers={"Idempotency-Key": key},
        )
        for name, key in [
            ("1", "1"),
            ("21-chars", "k" * 21),
            ("dotted", "a.b.c.d.e.f.g.h.i.j.k.l"),
            # Guessable, found by an attacker's review: a stranger sending one of these
            # with a common body would get another client's creation, tokens included.
            ("one-letter", "a" * 22),
            ("dashes", "-" * 24),
            ("nil-uuid", "00000000-0000-0000-0000-000000000000"),
            ("max-uuid", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
            ("uuid-v1", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
            ("uuid-v7", "01890a5d-ac96-774b-bcce-b302099a8057"),
            ("uuid-v4-pattern", "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"),
            ("short-cycle", "abcdeabcdeabcdeabcdeab"),
        ]
    ],
    case(
        "create-idempotency-key-256",
        "POST",
        GAMES,
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body=NEW_GAME,
        headers={"Idempotency-Key": "k" * 256},
    ),
    case(
        "create-idempotency-key-space",
        "POST",
        GAMES,
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body=NEW_GAME,
        headers={"Idempotency-Key": "my key"},
    ),
    case(
        "create-idempotency-key-non-ascii",
        "POST",
        GAMES,
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body=NEW_GAME,
        headers={"Idempotency-Key": "clé-ключ".encode()},
    ),
    case(
        "create-idempotency-key-empty",
        "POST",
        GAMES,
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body=NEW_GAME,
        headers={"Idempotency-Key": ""},
    ),
]

RESOLUTION_CASES = [
    case(
        "resolution-idempotency-key-weak",
        "POST",
        f"{G}/reports/1/resolution",
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body={},
        headers={"Idempotency-Key": "retry-1"},
    ),
    case(
        "resolution-idempotency-key-long",
        "POST",
        f"{G}/reports/1/resolution",
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body={},
        headers={"Idempotency-Key": "k" * 300},
    ),
    case(
        "resolution-idempotency-key-tab",
        "POST",
        f"{G}/reports/1/resolution",
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body={},
        headers={"Idempotency-Key": "a\tb"},
    ),
    case(
        "resolution-idempotency-key-non-ascii",
        "POST",
        f"{G}/reports/1/resolution",
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body={},
        headers={"Idempotency-Key": "ключ".encode()},
    ),
]


@pytest.mark.parametrize("c", CREATION_CASES)
async def test_hostile_stateless(run_stateless_case: CaseRunner, c: Case) -> None:
    """POST /v1/games: a problem, and nothing stored."""
    await run_stateless_case(c)


@pytest.mark.parametrize("c", RESOLUTION_CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """A resolution: a problem, and the game exactly as it was."""
    await run_game_case(c)
