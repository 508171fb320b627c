"""Final scores: the stateless calculation's and a stored game's (R-END-1..4)."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas.base import (
    Amount,
    Excommunications,
    PlayerRef,
    ResponseModel,
    StrictModel,
    examples,
)
from app.domain.players import MAX_PLAYERS
from app.domain.scoring import ScorePartName, ScoringPlayer
from app.services.calculations import Holding


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
