"""PUT /v1/games/{id}/players/{player_id}/leaders."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import Case, CaseRunner, G, v422

CASES = [
    v422(
        "leaders-unknown",
        "PUT",
        f"{G}/players/p1/leaders",
        ("body", "leaders", 0),
        body={"leaders": ["pope"]},
    ),
    v422(
        "leaders-case-variant",
        "PUT",
        f"{G}/players/p1/leaders",
        ("body", "leaders", 0),
        body={"leaders": ["Sisto_IV"]},
    ),
    v422(
        "leaders-twice",
        "PUT",
        f"{G}/players/p1/leaders",
        ("body", "leaders"),
        body={"leaders": ["santa_rita", "santa_rita"]},
    ),
    v422(
        "leaders-4",
        "PUT",
        f"{G}/players/p1/leaders",
        ("body", "leaders"),
        body={"leaders": ["sisto_iv", "santa_rita", "martin_lutero", "sisto_iv"]},
    ),
    v422(
        "leaders-string",
        "PUT",
        f"{G}/players/p1/leaders",
        ("body", "leaders"),
        body={"leaders": "sisto_iv"},
    ),
    v422(
        "leaders-null",
        "PUT",
        f"{G}/players/p1/leaders",
        ("body", "leaders"),
        body={"leaders": None},
    ),
    v422(
        "leaders-object",
        "PUT",
        f"{G}/players/p1/leaders",
        ("body", "leaders"),
        body={"leaders": {"sisto_iv": True}},
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Leaders: a problem, and the game exactly as it was."""
    await run_game_case(c)
