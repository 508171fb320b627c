"""GET /v1/games/{id}/events: its query parameters."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import Case, CaseRunner, G, v422

CASES = [
    v422("events-after-negative", "GET", f"{G}/events?after=-1", ("query", "after")),
    v422("events-after-x", "GET", f"{G}/events?after=x", ("query", "after")),
    v422("events-after-float", "GET", f"{G}/events?after=1.5", ("query", "after")),
    v422("events-after-2**31", "GET", f"{G}/events?after={2**31}", ("query", "after")),
    v422("events-after-10**100", "GET", f"{G}/events?after={10**100}", ("query", "after")),
    v422("events-limit-0", "GET", f"{G}/events?limit=0", ("query", "limit")),
    v422("events-limit-1001", "GET", f"{G}/events?limit=1001", ("query", "limit")),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Events: a problem, and the game exactly as it was."""
    await run_game_case(c)
