"""Tile pack files: their declared schema, and the catalogue loaded from them (R-DRAW-4).

A pack is a JSON document in the format of ``app/domain/catalogue/base.json``. Its schema is
declared here once, as pydantic models (the effect a discriminated union on ``kind``); the
same models describe a tile's effect in the API's answers. Loading validates every pack and
refuses a bad one with the file and the place that is wrong, before the service starts.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PositiveInt,
    TypeAdapter,
    ValidationError,
)

from app.domain.effects import (
    Action,
    ActionValueChange,
    CardType,
    ColouredMemberChange,
    Countable,
    Effect,
    ForbiddenArea,
    GainReduction,
    NoEndScoring,
    ReducibleResource,
    ServantRate,
    SkipFirstTurn,
    VpLossPerCount,
    VpLossPerVp,
    effect_as_dict,
)
from app.domain.tiles import BASE_EXPANSION, Catalogue, Tile


class TilePackError(ValueError):
    """A tile pack file that cannot be loaded; the message names the file and the place."""


class _Strict(BaseModel):
    # The API serves tile effects with every parameter, defaults included: its response
    # schemas say so (a pack file may still leave a defaulted parameter out).
    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, json_schema_serialization_defaults_required=True
    )


def _distinct(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError("lists a name twice")
    return values


# Non-empty lists of distinct names of one kind.
Resources = Annotated[list[ReducibleResource], Field(min_length=1), AfterValidator(_distinct)]
Actions = Annotated[list[Action], Field(min_length=1), AfterValidator(_distinct)]
Counts = Annotated[list[Countable], Field(min_length=1), AfterValidator(_distinct)]


class GainReductionEffect(_Strict):
    """I-1..I-4: per gain, each listed resource is reduced by `amount` (with `choose_one`,
    only one of them, chosen by the player)."""

    kind: Literal["gain_reduction"]
    resources: Resources
    amount: PositiveInt = 1
    choose_one: bool = False

    def to_effect(self) -> Effect:
        return GainReduction(tuple(self.resources), self.amount, self.choose_one)


class ActionValueChangeEffect(_Strict):
    """Every action of these kinds is worth `amount` more (negative: less)."""

    kind: Literal["action_value_change"]
    actions: Actions
    amount: int

    def to_effect(self) -> Effect:
        return ActionValueChange(tuple(self.actions), self.amount)


class ColouredMemberChangeEffect(_Strict):
    """Each coloured Family Member is worth `amount` more when placed."""

    kind: Literal["coloured_member_change"]
    amount: int

    def to_effect(self) -> Effect:
        return ColouredMemberChange(self.amount)


class ForbiddenAreaEffect(_Strict):
    """The player may not place in this area."""

    kind: Literal["forbidden_area"]
    action: Action

    def to_effect(self) -> Effect:
        return ForbiddenArea(self.action)


class ServantRateEffect(_Strict):
    """Servants add 1 to a value only per `servants_per_point` spent."""

    kind: Literal["servant_rate"]
    servants_per_point: PositiveInt

    def to_effect(self) -> Effect:
        return ServantRate(self.servants_per_point)


class SkipFirstTurnEffect(_Strict):
    """Skip the first turn of each round; place the last member after everyone."""

    kind: Literal["skip_first_turn"]

    def to_effect(self) -> Effect:
        return SkipFirstTurn()


class NoEndScoringEffect(_Strict):
    """Cards of this type score nothing at the end of the game."""

    kind: Literal["no_end_scoring"]
    card_type: CardType

    def to_effect(self) -> Effect:
        return NoEndScoring(self.card_type)


class VpLossPerVpEffect(_Strict):
    """Before final scoring, lose `amount` VP for every `per` VP on the track."""

    kind: Literal["vp_loss_per_vp"]
    per: PositiveInt
    amount: PositiveInt = 1

    def to_effect(self) -> Effect:
        return VpLossPerVp(self.per, self.amount)


class VpLossPerCountEffect(_Strict):
    """Lose `amount` VP for every `per` of the counted things together."""

    kind: Literal["vp_loss_per_count"]
    counts: Counts
    per: PositiveInt = 1
    amount: PositiveInt = 1

    def to_effect(self) -> Effect:
        return VpLossPerCount(tuple(self.counts), self.per, self.amount)


TileEffect: TypeAlias = Annotated[
    GainReductionEffect
    | ActionValueChangeEffect
    | ColouredMemberChangeEffect
    | ForbiddenAreaEffect
    | ServantRateEffect
    | SkipFirstTurnEffect
    | NoEndScoringEffect
    | VpLossPerVpEffect
    | VpLossPerCountEffect,
    Field(discriminator="kind"),
]
_EFFECT = TypeAdapter(TileEffect)


def effect_model(effect: Effect) -> TileEffect:
    """The declared model of a domain effect (for the API's answers)."""
    return _EFFECT.validate_python(effect_as_dict(effect))


NonBlank = Annotated[str, Field(min_length=1, pattern=r"\S")]


def _whole(value: Any) -> Any:
    # Literal[1] would take 1.0 and True (they equal 1): a pack's numbers are whole.
    if type(value) is not int:
        raise ValueError("must be a whole number")
    return value


Period = Annotated[Literal[1, 2, 3], BeforeValidator(_whole)]
Format = Annotated[Literal[1], BeforeValidator(_whole)]


class TileTexts(_Strict):
    en: NonBlank
    it: NonBlank


class PackTile(_Strict):
    id: Annotated[str, Field(min_length=1, max_length=16)]
    period: Period
    effect: TileEffect
    text: TileTexts


class TilePack(_Strict):
    format: Format
    name: TileTexts | None = None  # the expansion's own name, for people reading the file
    expansion: Annotated[str, Field(max_length=32, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
    tiles: Annotated[list[PackTile], Field(min_length=1)]

    def to_tiles(self) -> list[Tile]:
        return [
            Tile(t.id, t.period, self.expansion, t.effect.to_effect(), t.text.model_dump())
            for t in self.tiles
        ]


def _where(loc: tuple[int | str, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def parse_pack(data: Any, source: str) -> list[Tile]:
    """Validate one pack document into tiles; a TilePackError names the source and place."""
    try:
        return TilePack.model_validate(data).to_tiles()
    except ValidationError as exc:
        problems = "; ".join(f"{_where(e['loc']) or 'pack'}: {e['msg']}" for e in exc.errors())
        raise TilePackError(f"{source}: {problems}") from None


def load_base_tiles() -> list[Tile]:
    raw = resources.files("app.domain").joinpath("catalogue/base.json").read_text("utf-8")
    return parse_pack(json.loads(raw), "base.json")


def load_pack_file(path: Path) -> list[Tile]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TilePackError(f"{path}: cannot read a JSON document ({exc})") from exc
    tiles = parse_pack(data, str(path))
    if any(t.expansion == BASE_EXPANSION for t in tiles):
        raise TilePackError(f"{path}: expansion 'base' is reserved for the bundled tiles")
    return tiles


def load_catalogue(packs_dir: Path | None = None) -> Catalogue:
    """The base catalogue plus every ``*.json`` pack in ``packs_dir`` (if given)."""
    tiles = load_base_tiles()
    if packs_dir is not None:
        if not packs_dir.is_dir():
            raise TilePackError(f"{packs_dir}: the tile packs folder does not exist")
        for path in sorted(packs_dir.glob("*.json")):
            tiles.extend(load_pack_file(path))
    try:
        return Catalogue(tiles)
    except ValueError as exc:
        raise TilePackError(str(exc)) from None
