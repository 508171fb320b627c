"""Fixtures for the rules engine tests: the bundled catalogue and tiles by id."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.domain.tiles import Catalogue, Tile
from app.services.tile_packs import load_catalogue

TileGetter = Callable[..., tuple[Tile, ...]]


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return load_catalogue()


@pytest.fixture(scope="session")
def tiles(catalogue: Catalogue) -> TileGetter:
    """``tiles("I-2", "III-4")``: the base tiles with those ids, in that order."""

    def get(*ids: str) -> tuple[Tile, ...]:
        return tuple(catalogue.require(tile_id) for tile_id in ids)

    return get
