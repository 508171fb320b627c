"""R-UNDO-1 .. R-UNDO-3: undo and redo of the changes of play."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain import game as rules
from app.domain.errors import NothingToRedo, NothingToUndo, ReportResolved
from app.domain.game import GameState, report_view
from tests.domain.stored_games import Table, played
from tests.support.play_steps import PLAY_STEPS


def test_r_undo_1_an_undo_is_one_more_event_and_goes_one_further_back_each_time() -> None:
    table = Table()
    created = table.game
    table.play(rules.set_faith, {"p1": 5})
    after_faith = table.game
    table.play(rules.set_leaders, "p2", ["sisto_iv"])
    table.play(rules.set_turn_order, ["p3", "p1", "p2"])
    first = table.undo()
    assert first.type == "change_undone"
    assert (first.data["seq"], first.data["type"]) == (4, "turn_order_set")
    assert first.data["turn_order"] == ["p1", "p2", "p3"]
    table.undo()
    assert _same(table.game, after_faith)
    table.undo()
    assert _same(table.game, created)
    assert [seq for seq, _, _ in table.log] == list(range(1, 8))  # nothing left the log
    with pytest.raises(NothingToUndo):
        table.undo()
    assert table.replayed() == table.game


def test_r_undo_1_an_undo_reads_the_creation_and_the_changes_in_effect_only() -> None:
    table = Table()
    with pytest.raises(NothingToUndo):
        table.undo()
    assert table.reads == []  # nothing to undo: nothing read
    table.play(rules.set_faith, {"p1": 5})
    table.play(rules.change_seat_token, "p1", "reissued")
    table.play(rules.set_leaders, "p2", ["sisto_iv"])
    table.undo()
    table.redo()
    assert table.reads == [[1, 2, 4], [1, 2, 4]]


def test_r_undo_1_token_changes_are_never_undone() -> None:
    table = Table()
    table.play(rules.change_faith, "p1", 3)
    table.play(rules.change_seat_token, "p2", "revoked")
    undone = table.undo()
    assert undone.data["type"] == "faith_changed"  # past the token change
    with pytest.raises(NothingToUndo):
        table.undo()


def test_r_undo_1_the_event_carries_every_player_and_the_report_touched() -> None:
    table = Table()
    table.play(rules.set_faith, {"p1": 5, "p2": 1})
    table.play(rules.set_decision, 1, "p1", "refuse")
    event = table.undo()
    report = event.data["report"]
    assert report["period"] == 1 and report["status"] == "open"
    assert report["decisions"] == [
        {"player_id": "p1", "eligible": True, "choice": None},
        {"player_id": "p2", "eligible": False, "choice": None},
        {"player_id": "p3", "eligible": False, "choice": None},
    ]
    assert [p["faith"] for p in event.data["players"]] == [5, 1, 0]
    assert event.data["round"] is None


def test_r_undo_2_a_redo_applies_the_undone_change_again_in_order() -> None:
    table = Table()
    table.play(rules.set_faith, {"p1": 5})
    table.play(rules.change_faith, "p1", 2)
    had = table.game
    table.undo()
    table.undo()
    assert table.redo().data["type"] == "faith_set"
    assert table.game.player("p1").faith == 5
    assert table.redo().data["type"] == "faith_changed"
    assert _same(table.game, had)
    with pytest.raises(NothingToRedo):
        table.redo()


def test_r_undo_2_a_new_change_of_play_clears_what_could_be_redone() -> None:
    table = Table()
    table.play(rules.set_faith, {"p1": 5})
    table.undo()
    table.play(rules.change_seat_token, "host", "reissued")  # not a change of play
    table.play(rules.set_leaders, "p1", ["santa_rita"])
    with pytest.raises(NothingToRedo):
        table.redo()
    assert table.undo().data["type"] == "leaders_set"
    with pytest.raises(NothingToUndo):
        table.undo()


def test_r_undo_3_undoing_a_resolution_reopens_the_report_and_withdraws_its_outcomes() -> None:
    table = Table()
    table.play(rules.set_faith, {"p1": 5, "p2": 1, "p3": 9})
    table.play(rules.set_decision, 1, "p3", "refuse")
    before = table.game
    table.play(rules.resolve, 1, "support")
    resolved = table.game
    assert resolved.player("p2").excommunications and resolved.player("p1").faith == 0
    with pytest.raises(ReportResolved):
        table.play(rules.resolve, 1, "support")
    event = table.undo()
    assert event.data["report"]["status"] == "open"
    assert event.data["report"]["outcomes"] is None
    assert _same(table.game, before)
    assert table.game.report(1).choice_of("p3") == "refuse"
    # Resolved again, once, on the game as it now is (here: p3 changed its mind).
    table.play(rules.set_decision, 1, "p3", "support")
    table.play(rules.resolve, 1, "support")
    assert table.game.player("p3").faith == 0
    with pytest.raises(ReportResolved):
        table.play(rules.resolve, 1, "support")


def test_r_undo_3_redoing_a_resolution_puts_its_outcomes_back_with_their_time() -> None:
    table = Table()
    table.play(rules.set_faith, {"p1": 5})
    table.play(rules.resolve, 1, "support")
    resolved = table.game
    table.undo()
    event = table.redo()
    assert event.data["report"]["resolved_at"] == rules.timestamp(
        resolved.report(1).resolved_at  # type: ignore[arg-type]
    )
    assert _same(table.game, resolved)
    assert report_view(table.game, 1) == report_view(resolved, 1)


# ---- the property: undoing any suffix is never having made it ----------------------------


def _same(a: GameState, b: GameState) -> bool:
    """The same game whatever its version, its seqs and its times: same players, turn
    order, reports and round, and the same kinds of changes to undo (what could be redone
    is checked apart)."""

    def plain(game: GameState) -> GameState:
        return replace(
            game,
            version=0,
            undoable=tuple(replace(c, seq=0) for c in game.undoable),
            redoable=(),
            reports=tuple(replace(r, resolved_at=None) for r in game.reports),
        )

    return plain(a) == plain(b) and [r.resolved_at is None for r in a.reports] == [
        r.resolved_at is None for r in b.reports
    ]


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    plays=st.lists(PLAY_STEPS, max_size=30),
    undone=st.integers(0, 30),
    track_rounds=st.booleans(),
)
def test_r_undo_3_undoing_the_last_changes_is_never_having_made_them(
    plays: list[tuple[Any, ...]], undone: int, track_rounds: bool
) -> None:
    table, stored = played(plays, track_rounds)
    undone = min(undone, len(stored))
    had = table.game
    for _ in range(undone):
        table.undo()
    never, _ = played(stored[: len(stored) - undone], track_rounds)
    assert _same(table.game, never.game)
    assert [c.type for c in reversed(table.game.redoable)] == [
        c.type for c in had.undoable[len(had.undoable) - undone :]
    ]
    assert table.replayed() == table.game
    for _ in range(undone):
        table.redo()
    assert table.game == replace(had, version=table.game.version)
    assert table.replayed() == table.game
