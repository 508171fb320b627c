"""R-ORD-1: placement order within a round under II-7."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.domain.errors import InvalidInput
from app.domain.order import DEFAULT_FAMILY_MEMBERS, OrderPlayer, placement_order
from app.domain.tiles import Tile

TileGetter = Callable[..., tuple[Tile, ...]]  # the ``tiles`` fixture


def seq(order: list) -> str:  # type: ignore[type-arg]
    return " ".join(f"{p.player_id}{p.member}" for p in order)


@pytest.mark.parametrize(
    ("skippers", "members", "expected"),
    [
        ("", {}, "a1 b1 c1 a2 b2 c2 a3 b3 c3 a4 b4 c4"),
        ("a", {}, "b1 c1 a1 b2 c2 a2 b3 c3 a3 b4 c4 a4"),
        ("b", {}, "a1 c1 a2 b1 c2 a3 b2 c3 a4 b3 c4 b4"),
        ("ac", {}, "b1 a1 b2 c1 a2 b3 c2 a3 b4 c3 a4 c4"),
        ("abc", {}, "a1 b1 c1 a2 b2 c2 a3 b3 c3 a4 b4 c4"),
        ("a", {"a": 2, "b": 3, "c": 1}, "b1 c1 a1 b2 b3 a2"),
        ("a", {"a": 5, "b": 2, "c": 2}, "b1 c1 a1 b2 c2 a2 a3 a4 a5"),
        ("b", {"a": 1, "b": 1, "c": 3}, "a1 c1 c2 c3 b1"),
        ("ab", {"a": 3, "b": 2, "c": 3}, "c1 a1 b1 c2 a2 c3 a3 b2"),
        ("a", {"a": 0}, "b1 c1 b2 c2 b3 c3 b4 c4"),
    ],
)
def test_r_ord_1_ii_7_skips_the_first_turn_and_places_last(
    tiles: TileGetter, skippers: str, members: dict[str, int], expected: str
) -> None:
    ii7 = tiles("II-7")
    players = [
        OrderPlayer(
            pid,
            ii7 if pid in skippers else tiles("II-1"),
            members.get(pid, DEFAULT_FAMILY_MEMBERS),
        )
        for pid in "abc"
    ]
    assert seq(placement_order(players)) == expected


def test_r_ord_1_default_is_four_members_each() -> None:
    order = placement_order([OrderPlayer("a"), OrderPlayer("b")])
    assert DEFAULT_FAMILY_MEMBERS == 4
    assert len(order) == 8


def test_r_ord_1_a_player_listed_twice_is_invalid() -> None:
    with pytest.raises(InvalidInput):
        placement_order([OrderPlayer("a"), OrderPlayer("a")])


def test_r_ord_1_negative_family_members_are_invalid() -> None:
    with pytest.raises(InvalidInput) as raised:
        placement_order([OrderPlayer("a"), OrderPlayer("b", family_members=-1)])
    assert raised.value.loc == ("players", 1, "family_members")
