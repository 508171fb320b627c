"""Stateless calculations: resolve tile ids against the catalogue, then call the rules."""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.gains import check_one_tile_per_period
from app.domain.tiles import Catalogue, Tile


def tiles_for(
    catalogue: Catalogue, tile_ids: Sequence[str], loc: tuple[str | int, ...]
) -> tuple[Tile, ...]:
    """The tiles named by a player's excommunications: known ids, one per period (R-REP-7)."""
    tiles = tuple(
        catalogue.require(tile_id, loc=(*loc, index)) for index, tile_id in enumerate(tile_ids)
    )
    check_one_tile_per_period(tiles, loc)
    return tiles
