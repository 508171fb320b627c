"""The Excommunication tile catalogue: tiles are data (R-DRAW-1, R-DRAW-4).

The 21 base tiles ship in ``catalogue/base.json``. Extra packs (Houses of Renaissance,
the New Excommunications promo) are not bundled, because their texts are not public
here: a table that owns them writes a pack file in the same format and points the
service at its folder. Every pack is validated on load and a bad one is refused with
the file and the place that is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from app.domain.effects import (
    ACTIONS,
    CARD_TYPES,
    COUNTABLES,
    REDUCIBLE_RESOURCES,
    ActionValueChange,
    ColouredMemberChange,
    Effect,
    EffectKind,
    ForbiddenArea,
    GainReduction,
    NoEndScoring,
    ServantRate,
    SkipFirstTurn,
    VpLossPerCount,
    VpLossPerVp,
)
from app.domain.errors import InvalidInput, UnknownExpansion

BASE_EXPANSION = "base"
PACK_FORMAT = 1
LANGUAGES = ("en", "it")


@dataclass(frozen=True, slots=True)
class Tile:
    id: str
    period: int
    expansion: str
    effect: Effect
    text: Mapping[str, str]


class TilePackError(ValueError):
    """A tile pack file that cannot be loaded; the message names the file and the place."""


def _require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise TilePackError(f"{where}: {message}")


def _positive_int(data: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = data.get(key, default)
    _require(
        isinstance(value, int) and not isinstance(value, bool) and value > 0,
        f"{where}.{key}",
        "must be a positive integer",
    )
    assert isinstance(value, int)
    return value


def _int(data: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = data.get(key, default)
    _require(
        isinstance(value, int) and not isinstance(value, bool),
        f"{where}.{key}",
        "must be an integer",
    )
    assert isinstance(value, int)
    return value


def _names(
    data: Mapping[str, Any], key: str, allowed: Sequence[str], where: str
) -> tuple[str, ...]:
    value = data.get(key)
    _require(
        isinstance(value, list) and len(value) > 0 and all(isinstance(v, str) for v in value),
        f"{where}.{key}",
        "must be a non-empty list of strings",
    )
    assert isinstance(value, list)
    for item in value:
        _require(item in allowed, f"{where}.{key}", f"{item!r} is not one of {list(allowed)}")
    _require(len(set(value)) == len(value), f"{where}.{key}", "lists a name twice")
    return tuple(value)


def _one_of(data: Mapping[str, Any], key: str, allowed: Sequence[str], where: str) -> str:
    value = data.get(key)
    _require(value in allowed, f"{where}.{key}", f"must be one of {list(allowed)}")
    assert isinstance(value, str)
    return value


def _gain_reduction(d: Mapping[str, Any], w: str) -> Effect:
    choose_one = d.get("choose_one", False)
    _require(isinstance(choose_one, bool), f"{w}.choose_one", "must be true or false")
    return GainReduction(
        resources=_names(d, "resources", REDUCIBLE_RESOURCES, w),
        amount=_positive_int(d, "amount", w, default=1),
        choose_one=choose_one,
    )


def _action_value_change(d: Mapping[str, Any], w: str) -> Effect:
    return ActionValueChange(actions=_names(d, "actions", ACTIONS, w), amount=_int(d, "amount", w))


# One parser per effect kind, with the parameters each kind accepts.
_PARSERS: dict[EffectKind, tuple[frozenset[str], Any]] = {
    EffectKind.GAIN_REDUCTION: (frozenset({"resources", "amount", "choose_one"}), _gain_reduction),
    EffectKind.ACTION_VALUE_CHANGE: (frozenset({"actions", "amount"}), _action_value_change),
    EffectKind.COLOURED_MEMBER_CHANGE: (
        frozenset({"amount"}),
        lambda d, w: ColouredMemberChange(amount=_int(d, "amount", w)),
    ),
    EffectKind.FORBIDDEN_AREA: (
        frozenset({"action"}),
        lambda d, w: ForbiddenArea(action=_one_of(d, "action", ACTIONS, w)),
    ),
    EffectKind.SERVANT_RATE: (
        frozenset({"servants_per_point"}),
        lambda d, w: ServantRate(servants_per_point=_positive_int(d, "servants_per_point", w)),
    ),
    EffectKind.SKIP_FIRST_TURN: (frozenset(), lambda d, w: SkipFirstTurn()),
    EffectKind.NO_END_SCORING: (
        frozenset({"card_type"}),
        lambda d, w: NoEndScoring(card_type=_one_of(d, "card_type", CARD_TYPES, w)),
    ),
    EffectKind.VP_LOSS_PER_VP: (
        frozenset({"per", "amount"}),
        lambda d, w: VpLossPerVp(
            per=_positive_int(d, "per", w), amount=_positive_int(d, "amount", w, default=1)
        ),
    ),
    EffectKind.VP_LOSS_PER_COUNT: (
        frozenset({"counts", "per", "amount"}),
        lambda d, w: VpLossPerCount(
            counts=_names(d, "counts", COUNTABLES, w),
            per=_positive_int(d, "per", w, default=1),
            amount=_positive_int(d, "amount", w, default=1),
        ),
    ),
}


def parse_effect(data: Any, where: str) -> Effect:
    _require(isinstance(data, dict), where, "must be an object")
    kinds = [kind.value for kind in EffectKind]
    kind_name = data.get("kind")
    _require(kind_name in kinds, f"{where}.kind", f"must be one of {kinds}")
    accepted, parser = _PARSERS[EffectKind(kind_name)]
    unknown = sorted(set(data) - accepted - {"kind"})
    _require(not unknown, where, f"unknown parameters {unknown} for kind {kind_name!r}")
    effect: Effect = parser(data, where)
    return effect


def parse_pack(data: Any, source: str) -> list[Tile]:
    """Validate one pack document (the format of ``catalogue/base.json``) into tiles."""
    _require(isinstance(data, dict), source, "a pack must be a JSON object")
    pack_format = data.get("format")
    _require(
        type(pack_format) is int and pack_format == PACK_FORMAT,
        f"{source}: format",
        f"must be {PACK_FORMAT}",
    )
    expansion = data.get("expansion")
    _require(
        isinstance(expansion, str) and 0 < len(expansion) <= 32 and expansion.isidentifier(),
        f"{source}: expansion",
        "must be a short identifier such as 'hor'",
    )
    raw_tiles = data.get("tiles")
    _require(
        isinstance(raw_tiles, list) and len(raw_tiles) > 0,
        f"{source}: tiles",
        "must be a non-empty list",
    )
    tiles: list[Tile] = []
    for index, raw in enumerate(raw_tiles):
        where = f"{source}: tiles[{index}]"
        _require(isinstance(raw, dict), where, "must be an object")
        unknown = sorted(set(raw) - {"id", "period", "effect", "text"})
        _require(not unknown, where, f"unknown fields {unknown}")
        tile_id = raw.get("id")
        _require(
            isinstance(tile_id, str) and 0 < len(tile_id) <= 16,
            f"{where}.id",
            "must be a short string",
        )
        period = raw.get("period")
        _require(
            type(period) is int and period in (1, 2, 3),
            f"{where}.period",
            "must be 1, 2 or 3",
        )
        text = raw.get("text")
        _require(
            isinstance(text, dict)
            and set(text) == set(LANGUAGES)
            and all(isinstance(v, str) and v.strip() for v in text.values()),
            f"{where}.text",
            f"must give a non-empty text in each of {list(LANGUAGES)}",
        )
        assert isinstance(tile_id, str) and isinstance(period, int) and isinstance(text, dict)
        effect = parse_effect(raw.get("effect"), f"{where}.effect")
        tiles.append(Tile(tile_id, period, expansion, effect, dict(text)))
    return tiles


class Catalogue:
    """All tiles known to this service, in catalogue order: base first, then each pack
    (sorted by expansion id) in its file order. The draw relies on this order."""

    def __init__(self, tiles: Iterable[Tile]) -> None:
        ordered = sorted(tiles, key=lambda t: (t.expansion != BASE_EXPANSION, t.expansion))
        self._tiles: tuple[Tile, ...] = tuple(ordered)
        self._by_id: dict[str, Tile] = {}
        for tile in self._tiles:
            if tile.id in self._by_id:
                raise TilePackError(f"tile id {tile.id!r} is defined twice")
            self._by_id[tile.id] = tile
        self.expansions: tuple[str, ...] = tuple(dict.fromkeys(t.expansion for t in self._tiles))

    @property
    def tiles(self) -> tuple[Tile, ...]:
        return self._tiles

    def get(self, tile_id: str) -> Tile | None:
        return self._by_id.get(tile_id)

    def require(self, tile_id: str, loc: tuple[str | int, ...] = ()) -> Tile:
        """The tile with that id, or an InvalidInput naming where the unknown id was given."""
        tile = self._by_id.get(tile_id)
        if tile is None:
            raise InvalidInput(f"Unknown excommunication tile {tile_id!r}.", loc=loc)
        return tile

    def check_expansions(self, expansions: Sequence[str], loc: tuple[str | int, ...] = ()) -> None:
        for index, name in enumerate(expansions):
            if name not in self.expansions:
                raise UnknownExpansion(
                    f"Unknown expansion {name!r}; this service knows {list(self.expansions)}.",
                    loc=(*loc, index),
                )
        if BASE_EXPANSION not in expansions:
            raise UnknownExpansion(
                "The base tiles are always in play: 'base' must be among the expansions.", loc=loc
            )

    def select(self, period: int | None = None, expansion: str | None = None) -> list[Tile]:
        return [
            t
            for t in self._tiles
            if (period is None or t.period == period)
            and (expansion is None or t.expansion == expansion)
        ]

    def pool(self, period: int, expansions: Sequence[str]) -> list[Tile]:
        """R-DRAW-1/4: the tiles of that period from the enabled expansions, in catalogue order."""
        enabled = set(expansions)
        return [t for t in self._tiles if t.period == period and t.expansion in enabled]


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
    return Catalogue(tiles)
