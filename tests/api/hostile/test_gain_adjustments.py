"""POST /v1/games/{id}/players/{player_id}/gain-adjustments (computes only)."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import GAIN, JSON_CT, Case, CaseRunner, G, big_body, case, v422

CASES = [
    v422(
        "player-gains-empty",
        "POST",
        f"{G}/players/p1/gain-adjustments",
        ("body", "gains"),
        body={"gains": []},
    ),
    v422(
        "player-gains-excommunications",
        "POST",
        f"{G}/players/p1/gain-adjustments",
        ("body", "excommunications"),
        body={"excommunications": [], "gains": [GAIN]},
    ),
    v422(
        "player-gains-leaders",
        "POST",
        f"{G}/players/p1/gain-adjustments",
        ("body", "leaders"),
        body={"leaders": ["santa_rita"], "gains": [GAIN]},
    ),
    v422(
        "player-gains-resource-negative",
        "POST",
        f"{G}/players/p1/gain-adjustments",
        ("body", "gains", 0, "resources", "coins"),
        body={"gains": [{"source": {"kind": "leader"}, "resources": {"coins": -5}}]},
    ),
    v422(
        "player-gains-51",
        "POST",
        f"{G}/players/p1/gain-adjustments",
        ("body", "gains"),
        body={"gains": [GAIN] * 51},
    ),
    case(
        "player-gains-too-large-chunked",
        "POST",
        f"{G}/players/p1/gain-adjustments",
        413,
        "payload-too-large",
        stream=big_body(),
        headers=JSON_CT,
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Gain adjustments: a problem, and the game exactly as it was."""
    await run_game_case(c)
