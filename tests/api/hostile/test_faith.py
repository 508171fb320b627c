"""Setting faith: PUT /v1/games/{id}/players/{player_id}/faith and PUT /v1/games/{id}/faith."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import JSON_CT, Case, CaseRunner, G, big_body, case, raw, v422

CASES = [
    # PUT /v1/games/{id}/players/{player_id}/faith
    v422(
        "player-faith-negative",
        "PUT",
        f"{G}/players/p1/faith",
        ("body", "faith"),
        body={"faith": -1},
    ),
    v422(
        "player-faith-float", "PUT", f"{G}/players/p1/faith", ("body", "faith"), body={"faith": 3.0}
    ),
    v422(
        "player-faith-fraction",
        "PUT",
        f"{G}/players/p1/faith",
        ("body", "faith"),
        body={"faith": 3.5},
    ),
    v422(
        "player-faith-string",
        "PUT",
        f"{G}/players/p1/faith",
        ("body", "faith"),
        body={"faith": "3"},
    ),
    v422(
        "player-faith-bool", "PUT", f"{G}/players/p1/faith", ("body", "faith"), body={"faith": True}
    ),
    v422(
        "player-faith-null", "PUT", f"{G}/players/p1/faith", ("body", "faith"), body={"faith": None}
    ),
    v422("player-faith-missing", "PUT", f"{G}/players/p1/faith", ("body", "faith"), body={}),
    v422(
        "player-faith-10**6",
        "PUT",
        f"{G}/players/p1/faith",
        ("body", "faith"),
        body={"faith": 10**6},
    ),
    v422(
        "player-faith-2**63",
        "PUT",
        f"{G}/players/p1/faith",
        ("body", "faith"),
        body={"faith": 2**63},
    ),
    v422(
        "player-faith-10**100",
        "PUT",
        f"{G}/players/p1/faith",
        ("body", "faith"),
        body={"faith": 10**100},
    ),
    v422(
        "player-faith-unknown-field",
        "PUT",
        f"{G}/players/p1/faith",
        ("body", "player_id"),
        body={"faith": 1, "player_id": "p2"},
    ),
    v422("player-faith-body-array", "PUT", f"{G}/players/p1/faith", ("body",), body=[{"faith": 1}]),
    v422("player-faith-bare-number", "PUT", f"{G}/players/p1/faith", ("body",), body=3),
    raw("player-faith-nan", "PUT", f"{G}/players/p1/faith", b'{"faith": NaN}', ("body", "faith")),
    raw("player-faith-truncated", "PUT", f"{G}/players/p1/faith", b'{"faith": 3', ("body", 11)),
    raw("player-faith-trailing", "PUT", f"{G}/players/p1/faith", b'{"faith": 3}}', ("body", 12)),
    case(
        "player-faith-text-plain",
        "PUT",
        f"{G}/players/p1/faith",
        415,
        "unsupported-media-type",
        content=b'{"faith": 3}',
        headers={"content-type": "text/plain"},
    ),
    raw(
        "player-faith-no-content-type",
        "PUT",
        f"{G}/players/p1/faith",
        b'{"faith": 3}',
        ("body",),
        headers={},
    ),
    case(
        "player-faith-too-large",
        "PUT",
        f"{G}/players/p1/faith",
        413,
        "payload-too-large",
        content=big_body(),
        headers=JSON_CT,
    ),
    case(
        "player-faith-too-large-chunked",
        "PUT",
        f"{G}/players/p1/faith",
        413,
        "payload-too-large",
        stream=big_body(),
        headers=JSON_CT,
    ),
    # PUT /v1/games/{id}/faith (several players at once)
    v422("faith-empty", "PUT", f"{G}/faith", ("body", "faith"), body={"faith": {}}),
    v422("faith-array", "PUT", f"{G}/faith", ("body", "faith"), body={"faith": [3]}),
    v422("faith-int", "PUT", f"{G}/faith", ("body", "faith"), body={"faith": 3}),
    v422(
        "faith-value-negative",
        "PUT",
        f"{G}/faith",
        ("body", "faith", "p1"),
        body={"faith": {"p1": -1}},
    ),
    v422(
        "faith-value-string",
        "PUT",
        f"{G}/faith",
        ("body", "faith", "p2"),
        body={"faith": {"p1": 3, "p2": "4"}},
    ),
    v422(
        "faith-value-float",
        "PUT",
        f"{G}/faith",
        ("body", "faith", "p3"),
        body={"faith": {"p3": 4.0}},
    ),
    v422(
        "faith-value-huge",
        "PUT",
        f"{G}/faith",
        ("body", "faith", "p1"),
        body={"faith": {"p1": 10**100}},
    ),
    v422(
        "faith-key-empty",
        "PUT",
        f"{G}/faith",
        ("body", "faith", "", "[key]"),
        body={"faith": {"": 3}},
    ),
    v422(
        "faith-6-players",
        "PUT",
        f"{G}/faith",
        ("body", "faith"),
        body={"faith": {f"p{i}": 1 for i in range(1, 7)}},
    ),
    v422(
        "faith-unknown-player",
        "PUT",
        f"{G}/faith",
        ("body", "faith", "p9"),
        body={"faith": {"p1": 3, "p9": 3}},
    ),
    v422(
        "faith-unknown-field",
        "PUT",
        f"{G}/faith",
        ("body", "version"),
        body={"faith": {"p1": 3}, "version": 1},
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Faith: a problem, and the game exactly as it was."""
    await run_game_case(c)
