"""Undo and redo of the changes of play (R-UNDO-1 .. R-UNDO-3).

The log stays append-only: an undo is one more event, ``change_undone``, and a redo
``change_redone``. Neither inverts its change by a rule of its own: the game's creation
and the changes of play still in effect are replayed from the log, without the change
undone (or with the change redone), and the event carries the values that replay leaves,
which ``apply`` puts in place. So an undone change leaves the game exactly as if it had
never been made, whatever kind of change it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TypeVar

from app.domain.errors import NothingToRedo, NothingToUndo
from app.domain.events import (
    ChangeRedone,
    ChangeReverted,
    ChangeUndone,
    DecisionSet,
    GameEvent,
    ReportResolved,
    typed,
)
from app.domain.replay import replay
from app.domain.state import ChangeRef, GameState
from app.domain.views import report_view

#: A logged event: its seq, when it was logged, and the event.
LoggedChange = tuple[int, datetime, GameEvent]
#: Reads the logged events of the game with these seqs.
LogReader = Callable[[Sequence[int]], Iterable[LoggedChange]]


def undo(game: GameState, read: LogReader) -> ChangeUndone:
    """R-UNDO-1, R-UNDO-3: the event that reverts the last change of play still in effect
    (a resolution included: its report is open again); ``read`` gives the events it needs
    of the game's log (none when there is nothing to undo)."""
    if not game.undoable:
        raise NothingToUndo(f"Game {game.id} has no change of play left to undo.")
    change = game.undoable[-1]
    logged = _read(read, game.undoable)
    before = _effective(game.id, logged, game.undoable[:-1])
    return _reverting(ChangeUndone, change, logged[change.seq][2], before)


def redo(game: GameState, read: LogReader) -> ChangeRedone:
    """R-UNDO-2: the event that applies the most recently undone change again, while no
    change of play came since it was undone."""
    if not game.redoable:
        raise NothingToRedo(
            f"Game {game.id} has no undone change to redo: nothing was undone, or a change "
            "of play came since."
        )
    change = game.redoable[-1]
    effective = (*game.undoable, change)
    logged = _read(read, effective)
    after = _effective(game.id, logged, effective)
    return _reverting(ChangeRedone, change, logged[change.seq][2], after)


def _read(read: LogReader, changes: Sequence[ChangeRef]) -> dict[int, LoggedChange]:
    """The game's creation and ``changes``, as logged, by seq."""
    return {entry[0]: entry for entry in read([1, *(c.seq for c in changes)])}


def _effective(
    game_id: str, logged: dict[int, LoggedChange], changes: Sequence[ChangeRef]
) -> GameState:
    """The game its creation and ``changes`` (in order) fold to."""
    for change in changes:
        entry = logged.get(change.seq)
        if entry is None or entry[2].type != change.type:
            raise ValueError(f"game {game_id}: the log does not hold {change}")
    return replay(game_id, [logged[1], *(logged[change.seq] for change in changes)])


Reverting = TypeVar("Reverting", bound=ChangeReverted)


def _reverting(
    kind: type[Reverting], change: ChangeRef, logged: GameEvent, state: GameState
) -> Reverting:
    """The event that undoes (or redoes) ``change``, logged as ``logged``, leaving the
    game's values as ``state`` has them (R-UNDO-1..3): every player and the turn order,
    the report the change touched and the round, as clients read them, so that ``apply``
    (and a client) puts them in place without reading anything else."""
    touched = typed(logged)
    period = touched.period if isinstance(touched, DecisionSet | ReportResolved) else None
    return kind(
        seq=change.seq,
        change_type=change.type,
        players=state.players,
        turn_order=state.turn_order,
        report=None if period is None else report_view(state, period),
        round=state.round,
    )
