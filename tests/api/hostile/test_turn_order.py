"""PUT /v1/games/{id}/turn-order."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import Case, CaseRunner, G, v422

CASES = [
    v422(
        "turn-order-missing-player",
        "PUT",
        f"{G}/turn-order",
        ("body", "turn_order"),
        body={"turn_order": ["p1", "p2"]},
    ),
    v422(
        "turn-order-duplicate",
        "PUT",
        f"{G}/turn-order",
        ("body", "turn_order"),
        body={"turn_order": ["p1", "p1", "p2"]},
    ),
    v422(
        "turn-order-unknown",
        "PUT",
        f"{G}/turn-order",
        ("body", "turn_order"),
        body={"turn_order": ["p1", "p2", "p9"]},
    ),
    v422(
        "turn-order-case-variant",
        "PUT",
        f"{G}/turn-order",
        ("body", "turn_order"),
        body={"turn_order": ["p1", "p2", "P3"]},
    ),
    v422(
        "turn-order-1",
        "PUT",
        f"{G}/turn-order",
        ("body", "turn_order"),
        body={"turn_order": ["p1"]},
    ),
    v422(
        "turn-order-6",
        "PUT",
        f"{G}/turn-order",
        ("body", "turn_order"),
        body={"turn_order": ["p1", "p2", "p3", "p1", "p2", "p3"]},
    ),
    v422(
        "turn-order-int",
        "PUT",
        f"{G}/turn-order",
        ("body", "turn_order", 0),
        body={"turn_order": [1, 2, 3]},
    ),
    v422(
        "turn-order-id-very-long",
        "PUT",
        f"{G}/turn-order",
        ("body", "turn_order", 2),
        body={"turn_order": ["p1", "p2", "p" * 5000]},
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Turn order: a problem, and the game exactly as it was."""
    await run_game_case(c)
