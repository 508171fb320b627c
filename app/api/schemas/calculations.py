"""Stateless calculations: report, gains, action value, placement order, final scores."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas.base import (
    Amount,
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
from app.domain.actions import ActionRequest, FamilyMember, Origin
from app.domain.effects import Action
from app.domain.gains import Gain, SourceKind, WoodOrStone
from app.domain.order import OrderPlayer
from app.domain.players import MAX_PLAYERS
from app.domain.report import Choice, Outcome, ReportPlayer
from app.domain.scoring import ScorePartName, ScoringPlayer
from app.services.calculations import Holding

Excommunications = list[TileId]
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


# ---- Final scores ---------------------------------------------------------------------


class BuildingCosts(StrictModel):
    model_config = examples({"wood": 3, "stone": 2})

    wood: Amount = 0
    stone: Amount = 0


class BoardResources(StrictModel):
    model_config = examples({"coins": 3, "wood": 2, "stone": 1, "servants": 4})

    coins: Amount = 0
    wood: Amount = 0
    stone: Amount = 0
    servants: Amount = 0


class ScoringPlayerFields(StrictModel):
    model_config = examples({"id": "p1", "victory_points": 26, "military_points": 7})

    id: PlayerRef
    victory_points: Amount = 0
    military_points: Amount = 0
    territories: int = Field(default=0, ge=0, le=6)
    characters: int = Field(default=0, ge=0, le=6)
    venture_points: Amount = 0
    resources: BoardResources = Field(default_factory=BoardResources)
    building_costs: BuildingCosts = Field(default_factory=BuildingCosts)

    def to_domain(self) -> ScoringPlayer:
        return ScoringPlayer(
            id=self.id,
            victory_points=self.victory_points,
            military_points=self.military_points,
            territories=self.territories,
            characters=self.characters,
            venture_points=self.venture_points,
            resources=dict(self.resources.__dict__),
            building_costs=dict(self.building_costs.__dict__),
        )


class ScoringPlayerIn(ScoringPlayerFields):
    model_config = examples({"id": "anna", "victory_points": 26, "excommunications": ["III-4"]})

    excommunications: Excommunications = Field(default_factory=list, max_length=3)

    def held(self) -> Holding[ScoringPlayer]:
        return Holding(self.to_domain(), self.excommunications)


_SCORING_EXAMPLE = {
    "id": "anna",
    "victory_points": 26,
    "military_points": 7,
    "territories": 4,
    "characters": 3,
    "venture_points": 9,
    "resources": {"coins": 3, "wood": 2, "stone": 1, "servants": 4},
    "building_costs": {"wood": 3, "stone": 2},
}


class FinalScoresCalculation(StrictModel):
    model_config = examples(
        {
            "players": [
                {**_SCORING_EXAMPLE, "excommunications": ["I-1", "II-7", "III-4"]},
                {
                    "id": "bruno",
                    "victory_points": 31,
                    "military_points": 12,
                    "excommunications": [],
                },
            ]
        }
    )

    players: list[ScoringPlayerIn] = Field(min_length=1, max_length=MAX_PLAYERS)


class GameFinalScoresCalculation(StrictModel):
    """Every player of the game once, by player id; their stored excommunications apply."""

    model_config = examples(
        {
            "players": [
                {**_SCORING_EXAMPLE, "id": "p1"},
                {"id": "p2", "victory_points": 31},
                {"id": "p3", "victory_points": 18, "military_points": 12},
            ]
        }
    )

    players: list[ScoringPlayerFields] = Field(min_length=1, max_length=MAX_PLAYERS)


class ScorePartRead(ResponseModel):
    rule: str
    part: ScorePartName
    change: int
    by: str | None = None
    note: str | None = None


class PlayerScoreRead(ResponseModel):
    player_id: str
    parts: list[ScorePartRead]
    total: int


class FinalScoresResult(ResponseModel):
    players: list[PlayerScoreRead]
