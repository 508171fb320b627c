"""Reference data: the faith track, the tiles and tile draws."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas.base import PeriodKey, PeriodNumber, ResponseModel, Seed, StrictModel, examples
from app.domain.draw import MAX_SEED
from app.domain.tiles import Tile
from app.services.tile_packs import TileEffect, effect_model


class FaithStep(ResponseModel):
    faith: int
    victory_points: int


class PeriodRead(ResponseModel):
    period: PeriodNumber
    report_round: int
    threshold: int


class FaithTrack(ResponseModel):
    max_faith: int
    steps: list[FaithStep]
    periods: list[PeriodRead]


class TileText(ResponseModel):
    en: str
    it: str


class TileRead(ResponseModel):
    id: str = Field(examples=["I-2"])
    period: PeriodNumber
    expansion: str
    effect: TileEffect = Field(description="The effect kind and its parameters.")
    text: TileText

    @classmethod
    def of(cls, tile: Tile) -> TileRead:
        return cls(
            id=tile.id,
            period=tile.period,
            expansion=tile.expansion,
            effect=effect_model(tile.effect),
            text=TileText(en=tile.text["en"], it=tile.text["it"]),
        )


class TileList(ResponseModel):
    tiles: list[TileRead]


class TileDrawCreate(StrictModel):
    model_config = examples({"seed": 42, "expansions": ["base"]})

    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        description="Omit for a random seed; the answer gives the seed used.",
    )
    expansions: list[str] = Field(default_factory=lambda: ["base"], min_length=1, max_length=8)


class TileDrawRead(ResponseModel):
    seed: Seed
    algorithm: str = Field(examples=["sha256-mod-v1"])
    tiles: dict[PeriodKey, str] = Field(examples=[{"1": "I-6", "2": "II-3", "3": "III-7"}])
