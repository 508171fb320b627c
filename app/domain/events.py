"""A stored game's events: each type one frozen value, declared once, here.

A command returns one of these, :func:`~app.domain.replay.apply` folds it into the state,
and the API's event schemas are derived from these classes (``app/api/schemas/events.py``):
a field's type, its order, its description and its key (``describe``), and a class's
docstring, are what the contract says of that event's ``data``; a class without one has a
comment instead, which the contract does not show.

Every event has a ``type`` (its class's) and its ``data``: the JSON-ready mapping the log
stores and the API serves (``app/domain/json_data.py`` writes it from the fields).
:func:`read_event` gives the typed value of a logged ``type`` and ``data`` back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Self, cast, get_args

from app.domain.draw import Seed
from app.domain.faith import PeriodNumber
from app.domain.json_data import describe, from_data, to_data
from app.domain.leaders import LeaderId
from app.domain.report import Choice, Outcome
from app.domain.rounds import RoundState
from app.domain.state import PlayerState
from app.domain.views import ReportView

#: Every event type, in the order the contract lists them: one class below for each (a
#: check at import says they agree).
EventType = Literal[
    "game_created",
    "faith_set",
    "faith_changed",
    "leaders_set",
    "turn_order_set",
    "decision_set",
    "report_resolved",
    "round_advanced",
    "change_undone",
    "change_redone",
    "seat_token_changed",
]
#: The changes of play: what an undo reverts and a redo applies again (R-UNDO-1). The
#: creation, the seats' token changes and the undos and redos themselves are not.
PlayType = Literal[
    "faith_set",
    "faith_changed",
    "leaders_set",
    "turn_order_set",
    "decision_set",
    "report_resolved",
    "round_advanced",
]
PLAY_TYPES: frozenset[str] = frozenset(get_args(PlayType))
SeatTokenChange = Literal["reissued", "revoked", "recovered"]
FROM = describe(key="from")  # `from` is a Python keyword: the field is `from_`
LOST = describe("Faith above 15 that was not kept (R-FT-2).")


class GameEvent:
    """A change to a game: its ``type`` and its ``data``, the JSON-ready payload the log
    stores and the API serves.

    The classes below are its types. Called on this class itself, ``GameEvent(type,
    data)`` is an event as a log holds it, a :class:`LoggedEvent` that ``apply`` reads
    (:func:`read_event`) before folding it: the use cases build their log's events so
    (as ``pathlib.Path(...)`` gives the path class of its system)."""

    __slots__ = ()
    type: ClassVar[EventType]

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        return object.__new__(cast(type[Self], LoggedEvent if cls is GameEvent else cls))

    @property
    def data(self) -> Mapping[str, Any]:
        data: dict[str, Any] = to_data(self)
        return data


@dataclass(frozen=True, slots=True)
class LoggedEvent(GameEvent):
    """An event read from a log, as it was stored, not yet typed."""

    logged_type: EventType
    logged_data: Mapping[str, Any]

    @property
    def type(self) -> EventType:  # type: ignore[override]
        return self.logged_type

    @property
    def data(self) -> Mapping[str, Any]:
        return self.logged_data


@dataclass(frozen=True, slots=True)
class CreatedPlayer:
    id: str
    name: str
    leaders: tuple[LeaderId, ...]


# The game starts: players p1, p2... in seat order (also the first turn order).
@dataclass(frozen=True, slots=True)
class GameCreated(GameEvent):
    type: ClassVar[Literal["game_created"]] = "game_created"
    players: tuple[CreatedPlayer, ...]
    expansions: tuple[str, ...]
    seed: Seed | None = field(metadata=describe("null when the tiles were named, not drawn."))
    tiles: Mapping[PeriodNumber, str] = field(
        metadata=describe(
            "The tile id of each period, by period.",
            examples=[{"1": "I-6", "2": "II-3", "3": "III-7"}],
        )
    )
    players_enter_faith: bool
    track_rounds: bool = field(
        default=False,
        metadata=describe("false also for games logged before rounds were tracked."),
    )


@dataclass(frozen=True, slots=True)
class FaithChange:
    player_id: str
    from_: int = field(metadata=FROM)
    to: int
    lost: int = field(metadata=LOST)


# Faith set to values (R-FT-2): the players whose faith changed.
@dataclass(frozen=True, slots=True)
class FaithSet(GameEvent):
    type: ClassVar[Literal["faith_set"]] = "faith_set"
    changes: tuple[FaithChange, ...]


# A Faith change (R-FT-3): what was asked, what is kept and what was lost.
@dataclass(frozen=True, slots=True)
class FaithChanged(GameEvent):
    type: ClassVar[Literal["faith_changed"]] = "faith_changed"
    player_id: str
    delta: int = field(metadata=describe("The change asked for."))
    from_: int = field(metadata=FROM)
    to: int = field(metadata=describe("The faith kept: 0..15 (R-FT-3)."))
    lost: int = field(metadata=LOST)


@dataclass(frozen=True, slots=True)
class LeadersSet(GameEvent):
    type: ClassVar[Literal["leaders_set"]] = "leaders_set"
    player_id: str
    from_: tuple[LeaderId, ...] = field(metadata=FROM)
    to: tuple[LeaderId, ...]


@dataclass(frozen=True, slots=True)
class TurnOrderSet(GameEvent):
    type: ClassVar[Literal["turn_order_set"]] = "turn_order_set"
    from_: tuple[str, ...] = field(metadata=FROM)
    to: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DecisionSet(GameEvent):
    type: ClassVar[Literal["decision_set"]] = "decision_set"
    period: PeriodNumber
    player_id: str
    choice: Choice


# A report resolved: every player's outcome, which ``apply`` gives them all at once.
@dataclass(frozen=True, slots=True)
class ReportResolved(GameEvent):
    type: ClassVar[Literal["report_resolved"]] = "report_resolved"
    period: PeriodNumber
    default_choice: Choice | None
    outcomes: tuple[Outcome, ...]


@dataclass(frozen=True, slots=True)
class RoundAdvanced(GameEvent):
    type: ClassVar[Literal["round_advanced"]] = "round_advanced"
    from_: RoundState = field(metadata=FROM)
    to: RoundState


@dataclass(frozen=True, slots=True)
class ChangeReverted(GameEvent):
    """What an undo or a redo leaves, as the documents show it: put these in place."""

    seq: int = field(metadata=describe("The seq of the change undone (or redone)."))
    change_type: PlayType = field(metadata=describe("Its type.", key="type"))
    players: tuple[PlayerState, ...] = field(
        metadata=describe("Every player, as the Player document.")
    )
    turn_order: tuple[str, ...]
    report: ReportView | None = field(
        metadata=describe(
            "The report the change touched (a decision, a resolution), as the Report "
            "document; null for any other change."
        )
    )
    round: RoundState | None = field(metadata=describe("null when the game does not track rounds."))


# R-UNDO-1, R-UNDO-3: a change of play undone.
@dataclass(frozen=True, slots=True)
class ChangeUndone(ChangeReverted):
    type: ClassVar[Literal["change_undone"]] = "change_undone"


# R-UNDO-2: an undone change applied again.
@dataclass(frozen=True, slots=True)
class ChangeRedone(ChangeReverted):
    type: ClassVar[Literal["change_redone"]] = "change_redone"


@dataclass(frozen=True, slots=True)
class SeatTokenChanged(GameEvent):
    """Who holds a seat changed; the token itself is never logged."""

    type: ClassVar[Literal["seat_token_changed"]] = "seat_token_changed"
    seat: str = field(metadata=describe("`host`, or the player's id."))
    change: SeatTokenChange = field(
        metadata=describe(
            "`reissued`: the seat has a new token (the host seat moved to another device, "
            "a player's phone replaced); `revoked`: the seat has none; `recovered`: the "
            "host seat was regained with the recovery code. The seat's old token is refused."
        )
    )


#: Every event type's class, in the order of EventType.
EVENTS: tuple[type[GameEvent], ...] = (
    GameCreated,
    FaithSet,
    FaithChanged,
    LeadersSet,
    TurnOrderSet,
    DecisionSet,
    ReportResolved,
    RoundAdvanced,
    ChangeUndone,
    ChangeRedone,
    SeatTokenChanged,
)
if tuple(event.type for event in EVENTS) != get_args(EventType):
    raise TypeError("EVENTS and EventType must list the same event types, in one order")
_BY_TYPE: dict[str, type[GameEvent]] = {event.type: event for event in EVENTS}


def read_event(event_type: str, data: Mapping[str, Any]) -> GameEvent:
    """The typed event that a log holds as ``event_type`` and JSON ``data``."""
    kind = _BY_TYPE.get(event_type)
    if kind is None:
        raise ValueError(f"unknown event type {event_type!r}")
    event: GameEvent = from_data(kind, data)
    return event


def typed(event: GameEvent) -> GameEvent:
    """``event`` as its type's value: a logged event read, a typed one as it is."""
    return read_event(event.type, event.data) if isinstance(event, LoggedEvent) else event


def closed_seat(event_type: str, data: Mapping[str, Any]) -> str | None:
    """The seat whose token a logged event replaced or revoked: the token its holder had
    stops working there."""
    return str(data["seat"]) if event_type == SeatTokenChanged.type else None
