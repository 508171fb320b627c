"""Stateless calculations: report, gains, action value, placement order; the final scores'
schemas are in ``final_scores.py``."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas.base import (
    Amount,
    Excommunications,
    FaithIn,
    PeriodNumber,
    PlayerLeaders,
    PlayerRef,
    Resources,
    ResponseModel,
    StrictModel,
    TileId,
    examples,
)

# The final scores' schemas, imported from here by the routers beside the other calculations.
from app.api.schemas.final_scores import FinalScoresCalculation as FinalScoresCalculation
from app.api.schemas.final_scores import FinalScoresResult as FinalScoresResult
from app.api.schemas.final_scores import GameFinalScoresCalculation as GameFinalScoresCalculation
from app.domain.actions import ActionRequest, FamilyMember, Origin
from app.domain.effects import Action
from app.domain.gains import Gain, SourceKind, WoodOrStone
from app.domain.order import OrderPlayer
from app.domain.players import MAX_PLAYERS
from app.domain.report import Choice, Outcome, ReportPlayer
from app.services.calculations import Holding

# A calculation has no expansions to check a table's seats against: it takes up to five
# players, the most any table seats (docs/rules.md, ruling 18).


# ---- Vatican Report -------------------------------------------------------------------


class ReportPlayerIn(StrictModel):
    model_config = examples(
        {"id": "anna", "faith": 5, "leaders": ["sisto_iv"], "choice": "support"}
    )

    id: PlayerRef
    faith: FaithIn
    leaders: PlayerLeaders = Field(default_factory=list)
    choice: Choice | None = None

    def to_domain(self) -> ReportPlayer:
        return ReportPlayer(self.id, self.faith, frozenset(self.leaders), self.choice)


class VaticanReportCalculation(StrictModel):
    model_config = examples(
        {
            "period": 1,
            "tile_id": "I-2",
            "players": [
                {"id": "anna", "faith": 5, "leaders": ["sisto_iv"], "choice": "support"},
                {"id": "bruno", "faith": 2, "leaders": []},
                {"id": "carla", "faith": 4, "leaders": [], "choice": "refuse"},
            ],
        }
    )

    period: int = Field(ge=1, le=3, description="1, 2 or 3 (periods I-III)")
    tile_id: TileId | None = None
    players: list[ReportPlayerIn] = Field(min_length=1, max_length=MAX_PLAYERS)
    default_choice: Choice | None = None


class VaticanReportResult(ResponseModel):
    period: PeriodNumber
    threshold: int
    outcomes: list[Outcome]


# ---- Gains ----------------------------------------------------------------------------


class GainSource(StrictModel):
    model_config = examples({"kind": "card_immediate", "name": "Stonemason"})

    kind: SourceKind
    name: str | None = Field(default=None, max_length=100)


class GainIn(StrictModel):
    model_config = examples(
        {
            "source": {"kind": "action_space"},
            "resources": {"wood": 2, "stone": 2},
            "wood_or_stone": "stone",
        }
    )

    source: GainSource
    resources: Resources = Field(default_factory=Resources)
    privileges: list[Resources] = Field(default_factory=list, max_length=5)
    wood_or_stone: WoodOrStone | None = None

    def to_domain(self) -> Gain:
        return Gain(
            source_kind=self.source.kind,
            source_name=self.source.name,
            resources=self.resources.as_bag(),
            privileges=tuple(p.as_bag() for p in self.privileges),
            wood_or_stone=self.wood_or_stone,
        )


_GAINS_EXAMPLE = [
    {"source": {"kind": "action_space", "name": "Market coins"}, "resources": {"coins": 5}},
    {
        "source": {"kind": "card_immediate", "name": "Woods"},
        "resources": {"wood": 2, "stone": 1},
        "privileges": [{"coins": 2}],
    },
]


class GainsCalculation(StrictModel):
    model_config = examples(
        {"excommunications": ["I-2"], "leaders": ["santa_rita"], "gains": _GAINS_EXAMPLE}
    )

    excommunications: Excommunications = Field(default_factory=list, max_length=3)
    leaders: PlayerLeaders = Field(default_factory=list)
    gains: list[GainIn] = Field(min_length=1, max_length=50)


class PlayerGainsCalculation(StrictModel):
    """The body of calculations/gains without excommunications and leaders (stored ones)."""

    model_config = examples({"gains": _GAINS_EXAMPLE})

    gains: list[GainIn] = Field(min_length=1, max_length=50)


class GainSourceRead(ResponseModel):
    kind: SourceKind
    name: str | None = None


class GainStepRead(ResponseModel):
    rule: str
    by: str
    change: dict[str, int]
    note: str | None = None


class GainRead(ResponseModel):
    source: GainSourceRead
    received: dict[str, int]
    steps: list[GainStepRead]
    result: dict[str, int]


class GainsResult(ResponseModel):
    gains: list[GainRead]
    total: dict[str, int]


# ---- Action value ---------------------------------------------------------------------


class ActionValueCalculation(StrictModel):
    model_config = examples(
        {
            "excommunications": ["I-5"],
            "action": "harvest",
            "origin": "family_member",
            "family_member": "black",
            "die": 6,
            "large_space": True,
            "servants_spent": 2,
            "required_value": 1,
        }
    )

    excommunications: Excommunications = Field(default_factory=list, max_length=3)
    action: Action
    origin: Origin
    family_member: FamilyMember | None = None
    die: int | None = Field(default=None, ge=1, le=6)
    base_value: int | None = Field(default=None, ge=0, le=99)
    large_space: bool = False
    servants_spent: Amount = 0
    modifier: int = Field(default=0, ge=-99, le=99)
    required_value: int | None = Field(default=None, ge=0, le=99)

    def to_domain(self) -> ActionRequest:
        return ActionRequest(
            action=self.action,
            origin=self.origin,
            family_member=self.family_member,
            die=self.die,
            base_value=self.base_value,
            large_space=self.large_space,
            servants_spent=self.servants_spent,
            modifier=self.modifier,
            required_value=self.required_value,
        )


class ValueStepRead(ResponseModel):
    rule: str
    by: str
    change: int
    value: int
    note: str | None = None


class ActionValueResult(ResponseModel):
    allowed: bool
    value: int
    reaches_required: bool | None
    steps: list[ValueStepRead]


# ---- Placement order ------------------------------------------------------------------


class OrderPlayerIn(StrictModel):
    model_config = examples({"id": "bruno", "excommunications": ["II-7"], "family_members": 4})

    id: PlayerRef
    excommunications: Excommunications = Field(default_factory=list, max_length=3)
    family_members: int = Field(default=4, ge=0, le=6)

    def to_domain(self) -> Holding[OrderPlayer]:
        return Holding(
            OrderPlayer(self.id, family_members=self.family_members), self.excommunications
        )


class PlacementOrderCalculation(StrictModel):
    model_config = examples(
        {
            "players": [
                {"id": "anna", "excommunications": []},
                {"id": "bruno", "excommunications": ["I-3", "II-7"]},
                {"id": "carla", "excommunications": []},
            ]
        }
    )

    players: list[OrderPlayerIn] = Field(min_length=1, max_length=MAX_PLAYERS)


class PlacementRead(ResponseModel):
    player_id: str
    member: int


class PlacementOrderResult(ResponseModel):
    placements: list[PlacementRead]
