"""A stored game's state, as its events leave it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, overload

from app.domain.errors import NotFound
from app.domain.leaders import LeaderId
from app.domain.report import Choice, Outcome
from app.domain.rounds import RoundState

if TYPE_CHECKING:  # the events carry players: they import this module
    from app.domain.events import PlayType

ReportStatus = Literal["open", "resolved"]


@dataclass(frozen=True, slots=True)
class Excommunication:
    period: int
    tile_id: str


@dataclass(frozen=True, slots=True)
class PlayerState:
    id: str
    name: str
    faith: int
    report_victory_points: int
    leaders: tuple[LeaderId, ...]
    excommunications: tuple[Excommunication, ...] = ()


@dataclass(frozen=True, slots=True)
class Decision:
    player_id: str
    choice: Choice


@dataclass(frozen=True, slots=True)
class ReportState:
    period: int
    status: ReportStatus = "open"
    decisions: tuple[Decision, ...] = ()  # by player id
    outcomes: tuple[Outcome, ...] | None = None
    resolved_at: datetime | None = None

    def choice_of(self, player_id: str) -> Choice | None:
        return next((d.choice for d in self.decisions if d.player_id == player_id), None)


@dataclass(frozen=True, slots=True)
class ChangeRef:
    """A logged change of play, by its seq and type."""

    seq: int
    type: PlayType


class ChangeStack(Sequence[ChangeRef]):
    """Changes of play, oldest first: a game's ``undoable`` or ``redoable``. Immutable, and
    kept as the (seq, type) pairs it is stored as: every change of play pushes onto its
    game's stack without reading it, so a ``ChangeRef`` is made only of a pair that is read
    (an undo's, a redo's, the answer's last one), not of the whole stack on every change.
    Equal to another stack, or to a tuple of ``ChangeRef``, with the same changes."""

    __slots__ = ("_pairs",)

    def __init__(self, pairs: Iterable[Sequence[Any]] = ()) -> None:
        # Each pair is [seq, type] as stored (a list from JSON) or (seq, type).
        self._pairs: tuple[Sequence[Any], ...] = tuple(pairs)

    @classmethod
    def of(cls, *changes: ChangeRef) -> ChangeStack:
        return cls((change.seq, change.type) for change in changes)

    def pushed(self, change: ChangeRef) -> ChangeStack:
        """This stack with ``change`` on top."""
        return ChangeStack((*self._pairs, (change.seq, change.type)))

    def pairs(self) -> tuple[Sequence[Any], ...]:
        """The stack as JSON-ready [seq, type] pairs, oldest first."""
        return self._pairs

    def __len__(self) -> int:
        return len(self._pairs)

    @overload
    def __getitem__(self, index: int) -> ChangeRef: ...
    @overload
    def __getitem__(self, index: slice) -> ChangeStack: ...
    def __getitem__(self, index: int | slice) -> ChangeRef | ChangeStack:
        if isinstance(index, slice):
            return ChangeStack(self._pairs[index])
        seq, kind = self._pairs[index]
        return ChangeRef(seq, kind)

    def __iter__(self) -> Iterator[ChangeRef]:
        return (ChangeRef(seq, kind) for seq, kind in self._pairs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ChangeStack):
            return self._plain() == other._plain()
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._plain())

    def __repr__(self) -> str:
        return f"ChangeStack({list(self)!r})"

    def _plain(self) -> tuple[tuple[int, str], ...]:
        return tuple((seq, kind) for seq, kind in self._pairs)


NO_CHANGES = ChangeStack()


@dataclass(frozen=True, slots=True)
class GameState:
    """One game as its events leave it; ``version`` is the seq of the last event.

    ``undoable`` lists the changes of play in effect, oldest first (the last is what an
    undo reverts); ``redoable`` the changes undone since the last change of play, the
    most recently undone last (what a redo applies again)."""

    id: str
    version: int
    seed: int | None
    expansions: tuple[str, ...]
    tile_ids: Mapping[int, str]  # period -> tile id
    players_enter_faith: bool
    players: tuple[PlayerState, ...]  # in seat order: p1, p2, ...
    turn_order: tuple[str, ...]
    reports: tuple[ReportState, ...]
    round: RoundState | None = None  # None: the game does not track rounds
    undoable: ChangeStack = NO_CHANGES
    redoable: ChangeStack = NO_CHANGES

    def player(self, player_id: str) -> PlayerState:
        for player in self.players:
            if player.id == player_id:
                return player
        raise NotFound(f"Game {self.id} has no player {player_id!r}.")

    def report(self, period: int) -> ReportState:
        for report in self.reports:
            if report.period == period:
                return report
        raise NotFound(f"There is no report for period {period}: periods are 1, 2 and 3.")

    def in_turn_order(self) -> tuple[PlayerState, ...]:
        return tuple(self.player(player_id) for player_id in self.turn_order)
