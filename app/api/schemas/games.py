"""Stored games: creation, reads, faith, leaders, turn order, rounds, reports, undo and
redo, events."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, RootModel, StringConstraints, field_validator

from app.api.schemas.base import (
    PeriodKey,
    PeriodNumber,
    PlayerRef,
    ResponseModel,
    Seed,
    StrictModel,
    examples,
)
from app.api.schemas.reference import TileRead
from app.domain.draw import MAX_SEED
from app.domain.game import MAX_FAITH_DELTA, NewPlayer
from app.domain.leaders import LeaderId as Leader
from app.domain.report import Choice, Outcome
from app.services.games import NewGame

PlayerName = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=50, pattern=r"^[^\x00-\x1f\x7f-\x9f]+$"
    ),
]
# Faith as sent by a client: anything above 15 is stored as 15 and reported as lost.
FaithIn = Annotated[int, Field(ge=0, le=1000)]
RoundNumber = Annotated[int, Field(ge=1, le=6)]
#: The changes of play, which an undo reverts and a redo applies again.
PlayChange = Literal[
    "faith_set",
    "faith_changed",
    "leaders_set",
    "turn_order_set",
    "decision_set",
    "report_resolved",
    "round_advanced",
]


class PlayerCreate(StrictModel):
    model_config = examples({"name": "Anna", "leaders": ["sisto_iv"]})

    name: PlayerName
    leaders: list[Leader] = Field(default_factory=list, max_length=3)


class NamedTiles(StrictModel):
    model_config = examples({"1": "I-4", "2": "II-7", "3": "III-4"})

    period_1: str = Field(alias="1", min_length=1, max_length=16)
    period_2: str = Field(alias="2", min_length=1, max_length=16)
    period_3: str = Field(alias="3", min_length=1, max_length=16)

    def by_period(self) -> dict[int, str]:
        return {1: self.period_1, 2: self.period_2, 3: self.period_3}


class GameCreate(StrictModel):
    model_config = examples(
        {
            "players": [
                {"name": "Anna", "leaders": ["sisto_iv"]},
                {"name": "Bruno"},
                {"name": "Carla", "leaders": ["santa_rita"]},
            ],
            "expansions": ["base"],
            "seed": 42,
        },
        {
            "players": [{"name": "Anna"}, {"name": "Bruno"}],
            "tiles": {"1": "I-4", "2": "II-7", "3": "III-4"},
            "players_enter_faith": True,
        },
        {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 7, "track_rounds": True},
    )

    players: list[PlayerCreate] = Field(min_length=2, max_length=5)
    expansions: list[str] = Field(default_factory=lambda: ["base"], min_length=1, max_length=8)
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED)
    tiles: NamedTiles | None = None
    players_enter_faith: bool = False
    track_rounds: bool = Field(
        default=False,
        description="Follow the six rounds: a report then resolves only in its round's "
        "report phase, and the round cannot move past an open report (R-RND-1..4).",
    )

    def to_domain(self) -> NewGame:
        return NewGame(
            players=[NewPlayer(p.name, tuple(p.leaders)) for p in self.players],
            expansions=self.expansions,
            seed=self.seed,
            tiles=None if self.tiles is None else self.tiles.by_period(),
            players_enter_faith=self.players_enter_faith,
            track_rounds=self.track_rounds,
        )


class ExcommunicationRead(ResponseModel):
    period: PeriodNumber
    tile_id: str


class PlayerRead(ResponseModel):
    id: str
    name: str
    faith: int
    report_victory_points: int
    leaders: list[Leader]
    excommunications: list[ExcommunicationRead]


class ReportSummary(ResponseModel):
    period: PeriodNumber
    status: Literal["open", "resolved"]
    threshold: int


class RoundRead(ResponseModel):
    number: RoundNumber
    phase: Literal["play", "report"] = Field(
        description="`report` once the Vatican Report phase of round 2, 4 or 6 has begun."
    )


class GameRead(ResponseModel):
    id: str
    version: int
    seed: Seed | None
    expansions: list[str]
    players_enter_faith: bool
    tiles: dict[PeriodKey, TileRead]
    turn_order: list[str]
    players: list[PlayerRead]
    reports: list[ReportSummary]
    round: RoundRead | None = Field(
        default=None, description="null when the game was created without `track_rounds`."
    )


class GameCreated(ResponseModel):
    game: GameRead
    host_token: str = Field(description="Shown once: the service stores only its hash.")
    player_tokens: dict[str, str] = Field(description="Shown once, by player id.")
    recovery_code: str = Field(
        description="Shown once, stored only as a hash: regains the host seat when the "
        "host's device and what it stored are lost (`POST .../recovery`). Keep it apart "
        "from the host token (on paper, in a password manager)."
    )


class FaithUpdate(StrictModel):
    model_config = examples({"faith": 4})

    faith: FaithIn


class PlayerFaithRead(ResponseModel):
    player: PlayerRead
    faith_lost: int


class FaithChangeCreate(StrictModel):
    model_config = examples({"delta": 1}, {"delta": -2})

    delta: int = Field(
        ge=-MAX_FAITH_DELTA,
        le=MAX_FAITH_DELTA,
        description="Faith to add (negative: to remove), not 0. Above 15 is lost; a "
        "removal stops at 0 (R-FT-3).",
    )

    @field_validator("delta")
    @classmethod
    def _not_zero(cls, delta: int) -> int:
        if delta == 0:
            raise ValueError("a faith change of 0 changes nothing")
        return delta


class FaithChangeRead(ResponseModel):
    player: PlayerRead
    faith_lost: int = Field(description="Faith above 15 that was not kept (R-FT-2).")
    applied: int = Field(
        description="The change the track took: `delta`, less what was lost above 15 or "
        "floored at 0."
    )


class FaithBatchUpdate(StrictModel):
    model_config = examples({"faith": {"p1": 3, "p2": 7}})

    faith: dict[PlayerRef, FaithIn] = Field(min_length=1, max_length=5)


class FaithBatchRead(ResponseModel):
    players: list[PlayerRead]
    faith_lost: dict[str, int]


class LeadersUpdate(StrictModel):
    model_config = examples({"leaders": ["sisto_iv"]})

    leaders: list[Leader] = Field(max_length=3)


class TurnOrderUpdate(StrictModel):
    model_config = examples({"turn_order": ["p2", "p1", "p3"]})

    turn_order: list[PlayerRef] = Field(min_length=2, max_length=5)


class DecisionUpdate(StrictModel):
    model_config = examples({"choice": "support"})

    choice: Choice


class ResolutionCreate(StrictModel):
    model_config = examples({}, {"default_choice": "support"})

    default_choice: Choice | None = None


class DecisionRead(ResponseModel):
    player_id: str
    eligible: bool
    choice: Choice | None


class ReportRead(ResponseModel):
    period: PeriodNumber
    round: int
    threshold: int
    status: Literal["open", "resolved"]
    tile_id: str
    decisions: list[DecisionRead]
    outcomes: list[Outcome] | None
    resolved_at: datetime | None = None


class ChangeRefRead(ResponseModel):
    """A logged change of play, by its seq (the version it produced) and type."""

    seq: int
    type: PlayChange


class UndoRead(ResponseModel):
    undone: ChangeRefRead = Field(description="The change this undo reverted.")
    undo: ChangeRefRead | None = Field(description="What the next undo would revert.")
    redo: ChangeRefRead | None = Field(description="What a redo would apply again.")
    game: GameRead


class RedoRead(ResponseModel):
    redone: ChangeRefRead = Field(description="The change this redo applied again.")
    undo: ChangeRefRead | None = Field(description="What the next undo would revert.")
    redo: ChangeRefRead | None = Field(description="What the next redo would apply again.")
    game: GameRead


# ---- events: one shape per type, told apart by `type` ------------------------------


class EventPayload(ResponseModel):
    """An event's `data`, as the log stores it (`from` is a Python keyword, hence aliases)."""

    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True)


class CreatedPlayer(EventPayload):
    id: str
    name: str
    leaders: list[Leader]


class GameCreatedData(EventPayload):
    players: list[CreatedPlayer]
    expansions: list[str]
    seed: Seed | None = Field(description="null when the tiles were named, not drawn.")
    tiles: dict[PeriodKey, str] = Field(
        description="The tile id of each period, by period.",
        examples=[{"1": "I-6", "2": "II-3", "3": "III-7"}],
    )
    players_enter_faith: bool
    track_rounds: bool = Field(
        default=False, description="false also for games logged before rounds were tracked."
    )


class FaithChange(EventPayload):
    player_id: str
    from_: int = Field(alias="from")
    to: int
    lost: int = Field(description="Faith above 15 that was not kept (R-FT-2).")


class FaithSetData(EventPayload):
    changes: list[FaithChange]


class FaithChangedData(EventPayload):
    player_id: str
    delta: int = Field(description="The change asked for.")
    from_: int = Field(alias="from")
    to: int = Field(description="The faith kept: 0..15 (R-FT-3).")
    lost: int = Field(description="Faith above 15 that was not kept (R-FT-2).")


class LeadersSetData(EventPayload):
    player_id: str
    from_: list[Leader] = Field(alias="from")
    to: list[Leader]


class TurnOrderSetData(EventPayload):
    from_: list[str] = Field(alias="from")
    to: list[str]


class DecisionSetData(EventPayload):
    period: PeriodNumber
    player_id: str
    choice: Choice


class ReportResolvedData(EventPayload):
    period: PeriodNumber
    default_choice: Choice | None
    outcomes: list[Outcome]


class RoundAdvancedData(EventPayload):
    from_: RoundRead = Field(alias="from")
    to: RoundRead


class ChangeRevertedData(EventPayload):
    """What an undo or a redo leaves, as the documents show it: put these in place."""

    seq: int = Field(description="The seq of the change undone (or redone).")
    type: PlayChange = Field(description="Its type.")
    players: list[PlayerRead] = Field(description="Every player, as the Player document.")
    turn_order: list[str]
    report: ReportRead | None = Field(
        description="The report the change touched (a decision, a resolution), as the "
        "Report document; null for any other change."
    )
    round: RoundRead | None = Field(description="null when the game does not track rounds.")


class SeatTokenChangedData(EventPayload):
    """Who holds a seat changed; the token itself is never logged."""

    seat: str = Field(description="`host`, or the player's id.")
    change: Literal["reissued", "revoked", "recovered"] = Field(
        description="`reissued`: the seat has a new token (the host seat moved to another "
        "device, a player's phone replaced); `revoked`: the seat has none; `recovered`: the "
        "host seat was regained with the recovery code. The seat's old token is refused."
    )


class _Event(ResponseModel):
    seq: int = Field(description="The game version this change produced: 1, 2, 3, ...")
    at: datetime


class GameCreatedEvent(_Event):
    type: Literal["game_created"]
    data: GameCreatedData


class FaithSetEvent(_Event):
    type: Literal["faith_set"]
    data: FaithSetData


class FaithChangedEvent(_Event):
    type: Literal["faith_changed"]
    data: FaithChangedData


class LeadersSetEvent(_Event):
    type: Literal["leaders_set"]
    data: LeadersSetData


class TurnOrderSetEvent(_Event):
    type: Literal["turn_order_set"]
    data: TurnOrderSetData


class DecisionSetEvent(_Event):
    type: Literal["decision_set"]
    data: DecisionSetData


class ReportResolvedEvent(_Event):
    type: Literal["report_resolved"]
    data: ReportResolvedData


class RoundAdvancedEvent(_Event):
    type: Literal["round_advanced"]
    data: RoundAdvancedData


class ChangeUndoneEvent(_Event):
    type: Literal["change_undone"]
    data: ChangeRevertedData


class ChangeRedoneEvent(_Event):
    type: Literal["change_redone"]
    data: ChangeRevertedData


class SeatTokenChangedEvent(_Event):
    type: Literal["seat_token_changed"]
    data: SeatTokenChangedData


class EventRead(
    RootModel[
        Annotated[
            GameCreatedEvent
            | FaithSetEvent
            | FaithChangedEvent
            | LeadersSetEvent
            | TurnOrderSetEvent
            | DecisionSetEvent
            | ReportResolvedEvent
            | RoundAdvancedEvent
            | ChangeUndoneEvent
            | ChangeRedoneEvent
            | SeatTokenChangedEvent,
            Field(discriminator="type"),
        ]
    ]
):
    """One change to a game; `type` says which, and the shape of its `data`."""

    model_config = ConfigDict(from_attributes=True)


class EventList(ResponseModel):
    events: list[EventRead]
    last_seq: int = Field(description="The seq of the last event returned (or `after`).")
