"""Undo and redo: POST /v1/games/{id}/undo and /redo, and rounds: .../round-advances."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import Case, CaseRunner, G, case

WEAK_KEY = {"Idempotency-Key": "a.b.c.d.e.f.g.h.i.j.k.l"}
CASES = [
    case("undo-nothing-in-a-new-game", "POST", f"{G}/undo", 409, "nothing-to-undo"),
    case("redo-nothing-undone", "POST", f"{G}/redo", 409, "nothing-to-redo", setup="faith"),
    case(
        "undo-key-weak",
        "POST",
        f"{G}/undo",
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        headers=WEAK_KEY,
        setup="faith",
    ),
    case("undo-unknown-game", "POST", "/v1/games/0123/undo", 404, "not-found"),
    # A game that does not track rounds has none to advance.
    case("round-advance-untracked", "POST", f"{G}/round-advances", 409, "rounds-not-tracked"),
    case(
        "round-advance-key-weak",
        "POST",
        f"{G}/round-advances",
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        headers=WEAK_KEY,
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Undo, redo, rounds: a problem, and the game exactly as it was."""
    await run_game_case(c)
