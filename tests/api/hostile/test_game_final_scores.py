"""POST /v1/games/{id}/final-scores (computes only)."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import Case, CaseRunner, G, v422

CASES = [
    v422(
        "game-final-excommunications",
        "POST",
        f"{G}/final-scores",
        ("body", "players", 0, "excommunications"),
        body={"players": [{"id": "p1", "excommunications": []}, {"id": "p2"}, {"id": "p3"}]},
    ),
    v422(
        "game-final-unknown-player",
        "POST",
        f"{G}/final-scores",
        ("body", "players", 2, "id"),
        body={"players": [{"id": "p1"}, {"id": "p2"}, {"id": "p9"}]},
    ),
    v422(
        "game-final-missing-player",
        "POST",
        f"{G}/final-scores",
        ("body", "players"),
        body={"players": [{"id": "p1"}, {"id": "p2"}]},
    ),
    v422(
        "game-final-duplicate-player",
        "POST",
        f"{G}/final-scores",
        ("body", "players"),
        body={"players": [{"id": "p1"}, {"id": "p2"}, {"id": "p3"}, {"id": "p3"}]},
    ),
    v422(
        "game-final-6-players",
        "POST",
        f"{G}/final-scores",
        ("body", "players"),
        body={"players": [{"id": f"p{i}"} for i in range(1, 7)]},
    ),
    v422(
        "game-final-territories-float",
        "POST",
        f"{G}/final-scores",
        ("body", "players", 0, "territories"),
        body={"players": [{"id": "p1", "territories": 2.0}, {"id": "p2"}, {"id": "p3"}]},
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Final scores: a problem, and the game exactly as it was."""
    await run_game_case(c)
