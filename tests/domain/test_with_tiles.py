"""``with_tiles`` builds a player field by field (faster than ``dataclasses.replace``): it
must carry every field over, including any added later."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import pytest

from app.domain.order import OrderPlayer
from app.domain.scoring import ScoringPlayer


@pytest.mark.parametrize("player_class", [ScoringPlayer, OrderPlayer])
def test_with_tiles_is_replace_of_the_tiles_alone(player_class: Any) -> None:
    # A distinct marker in every field, so a field left behind or swapped shows.
    player = player_class(**{f.name: object() for f in fields(player_class)})
    tiles: Any = object()
    moved = player.with_tiles(tiles)
    expected = replace(player, tiles=tiles)
    for f in fields(player_class):
        assert getattr(moved, f.name) is getattr(expected, f.name), f.name
