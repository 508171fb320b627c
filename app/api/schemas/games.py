"""Stored games: creation, reads, faith, leaders, turn order, reports, events."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, RootModel, StringConstraints

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
from app.domain.game import NewPlayer
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
    )

    players: list[PlayerCreate] = Field(min_length=2, max_length=5)
    expansions: list[str] = Field(default_factory=lambda: ["base"], min_length=1, max_length=8)
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED)
    tiles: NamedTiles | None = None
    players_enter_faith: bool = False

    def to_domain(self) -> NewGame:
        return NewGame(
            players=[NewPlayer(p.name, tuple(p.leaders)) for p in self.players],
            expansions=self.expansions,
            seed=self.seed,
            tiles=None if self.tiles is None else self.tiles.by_period(),
            players_enter_faith=self.players_enter_faith,
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


class GameCreated(ResponseModel):
    game: GameRead
    host_token: str = Field(description="Shown once: the service stores only its hash.")
    player_tokens: dict[str, str] = Field(description="Shown once, by player id.")


class FaithUpdate(StrictModel):
    model_config = examples({"faith": 4})

    faith: FaithIn


class PlayerFaithRead(ResponseModel):
    player: PlayerRead
    faith_lost: int


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


class FaithChange(EventPayload):
    player_id: str
    from_: int = Field(alias="from")
    to: int
    lost: int = Field(description="Faith above 15 that was not kept (R-FT-2).")


class FaithSetData(EventPayload):
    changes: list[FaithChange]


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


class _Event(ResponseModel):
    seq: int = Field(description="The game version this change produced: 1, 2, 3, ...")
    at: datetime


class GameCreatedEvent(_Event):
    type: Literal["game_created"]
    data: GameCreatedData


class FaithSetEvent(_Event):
    type: Literal["faith_set"]
    data: FaithSetData


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


class EventRead(
    RootModel[
        Annotated[
            GameCreatedEvent
            | FaithSetEvent
            | LeadersSetEvent
            | TurnOrderSetEvent
            | DecisionSetEvent
            | ReportResolvedEvent,
            Field(discriminator="type"),
        ]
    ]
):
    """One change to a game; `type` says which, and the shape of its `data`."""

    model_config = ConfigDict(from_attributes=True)


class EventList(ResponseModel):
    events: list[EventRead]
    last_seq: int = Field(description="The seq of the last event returned (or `after`).")
