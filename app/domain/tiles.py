"""The Excommunication tile catalogue: tiles are data (R-DRAW-1, R-DRAW-4).

The 21 base tiles ship in ``catalogue/base.json``. Extra packs (Houses of Renaissance,
the New Excommunications promo) are not bundled, because their texts are not public
here: a table that owns them writes a pack file in the same format and points the
service at its folder. Pack files are read and validated outside the domain
(``app/services/tile_packs.py``); here, the tiles and the catalogue they make.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from app.domain.effects import Effect
from app.domain.errors import InvalidInput, UnknownExpansion

BASE_EXPANSION = "base"


@dataclass(frozen=True, slots=True)
class Tile:
    id: str
    period: int
    expansion: str
    effect: Effect
    text: Mapping[str, str]


class Catalogue:
    """All tiles known to this service, in catalogue order: base first, then each pack
    (sorted by expansion id) in its file order. The draw relies on this order."""

    def __init__(self, tiles: Iterable[Tile]) -> None:
        ordered = sorted(tiles, key=lambda t: (t.expansion != BASE_EXPANSION, t.expansion))
        self._tiles: tuple[Tile, ...] = tuple(ordered)
        self._by_id: dict[str, Tile] = {}
        for tile in self._tiles:
            if tile.id in self._by_id:
                raise ValueError(f"tile id {tile.id!r} is defined twice")
            self._by_id[tile.id] = tile
        self.expansions: tuple[str, ...] = tuple(dict.fromkeys(t.expansion for t in self._tiles))

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
