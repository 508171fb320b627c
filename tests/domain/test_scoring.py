"""R-END-1 .. R-END-4: final scoring with the period III tiles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.domain.errors import InvalidInput
from app.domain.scoring import PlayerScore, ScoringPlayer, final_scores
from app.domain.tiles import Tile

TileGetter = Callable[..., tuple[Tile, ...]]  # the ``tiles`` fixture


def score(player: ScoringPlayer) -> PlayerScore:
    (result,) = final_scores([player])
    return result


def part(result: PlayerScore, name: str) -> int:
    return sum(p.change for p in result.parts if p.part == name)


@pytest.mark.parametrize(
    ("count", "vp"), [(0, 0), (1, 0), (2, 0), (3, 1), (4, 4), (5, 10), (6, 20)]
)
def test_r_end_1_territories_by_count(count: int, vp: int) -> None:
    assert part(score(ScoringPlayer("a", territories=count)), "territories") == vp


@pytest.mark.parametrize(
    ("count", "vp"), [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 15), (6, 21)]
)
def test_r_end_1_characters_by_count(count: int, vp: int) -> None:
    assert part(score(ScoringPlayer("a", characters=count)), "characters") == vp


@pytest.mark.parametrize("field", ["territories", "characters"])
def test_r_end_1_more_than_six_cards_is_invalid(field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        final_scores([ScoringPlayer("a"), ScoringPlayer("b", **{field: 7})])
    assert raised.value.loc == ("players", 1, field)


@pytest.mark.parametrize(
    "field",
    ["territories", "characters", "victory_points", "military_points", "venture_points"],
)
def test_r_end_1_negative_counts_are_invalid(field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        final_scores([ScoringPlayer("a", **{field: -1})])
    assert raised.value.loc == ("players", 0, field)


@pytest.mark.parametrize("field", ["resources", "building_costs"])
def test_r_end_1_negative_resources_are_invalid(field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        final_scores([ScoringPlayer("a", **{field: {"wood": -2}})])
    assert raised.value.loc == ("players", 0, field, "wood")


def test_r_end_1_ventures_score_their_printed_points() -> None:
    assert part(score(ScoringPlayer("a", venture_points=17)), "ventures") == 17


@pytest.mark.parametrize(
    ("military", "awards"),
    [
        ([7, 4, 2], [5, 2, 0]),
        ([7, 7, 2], [5, 5, 0]),  # tie for first: all 5, no second
        ([7, 7, 7], [5, 5, 5]),
        ([7, 4, 4], [5, 2, 2]),  # tie for second: all 2
        ([3, 0, 0], [5, 0, 0]),  # 0 military gets nothing
        ([0, 0, 0], [0, 0, 0]),
        ([5, 0, 5], [5, 0, 5]),
        ([1, 9, 0, 1], [2, 5, 0, 2]),
    ],
)
def test_r_end_1_military_first_and_second(military: list[int], awards: list[int]) -> None:
    players = [ScoringPlayer(f"p{i}", military_points=m) for i, m in enumerate(military)]
    assert [part(r, "military") for r in final_scores(players)] == awards


@pytest.mark.parametrize(
    ("resources", "vp"),
    [
        ({}, 0),
        ({"wood": 4}, 0),
        ({"wood": 2, "stone": 1, "coins": 1, "servants": 1}, 1),
        ({"coins": 14}, 2),
        ({"coins": 15, "faith_points": 10, "military_points": 10}, 3),
    ],
)
def test_r_end_1_one_vp_per_five_resources(resources: dict[str, int], vp: int) -> None:
    assert part(score(ScoringPlayer("a", resources=resources)), "resources") == vp


@pytest.mark.parametrize(("vp", "loss"), [(0, 0), (4, 0), (5, 1), (9, 1), (26, 5), (100, 20)])
def test_r_end_2_iii_4_loses_one_per_five_on_the_track(
    tiles: TileGetter, vp: int, loss: int
) -> None:
    result = score(ScoringPlayer("a", tiles("III-4"), victory_points=vp, territories=6))
    assert part(result, "vp_loss_per_vp") == -loss
    assert result.total == vp - loss + 20  # computed on the track, before card scoring


@pytest.mark.parametrize(
    ("tile_id", "zeroed"),
    [("III-1", "characters"), ("III-2", "ventures"), ("III-3", "territories")],
)
def test_r_end_3_iii_1_2_3_zero_the_card_type(tiles: TileGetter, tile_id: str, zeroed: str) -> None:
    player: dict[str, Any] = {"territories": 4, "characters": 3, "venture_points": 8}
    plain = score(ScoringPlayer("a", **player))
    hit = score(ScoringPlayer("a", tiles(tile_id), **player))
    for card_type in ("territories", "characters", "ventures"):
        expected = 0 if card_type == zeroed else part(plain, card_type)
        assert part(hit, card_type) == expected
    zero_part = next(p for p in hit.parts if p.part == zeroed)
    assert (zero_part.rule, zero_part.by) == ("R-END-3", tile_id)


@pytest.mark.parametrize(
    ("tile_id", "player", "loss"),
    [
        ("III-5", {"military_points": 7}, 7),
        ("III-5", {"military_points": 0}, 0),
        ("III-6", {"building_costs": {"wood": 3, "stone": 4}}, 7),
        ("III-6", {"building_costs": {"coins": 5}}, 0),
        ("III-7", {"resources": {"wood": 1, "stone": 2, "coins": 3, "servants": 4}}, 10),
        ("III-7", {"resources": {"faith_points": 3, "military_points": 2}}, 0),
    ],
)
def test_r_end_3_iii_5_6_7_losses(
    tiles: TileGetter, tile_id: str, player: dict[str, Any], loss: int
) -> None:
    result = score(ScoringPlayer("a", tiles(tile_id), victory_points=50, **player))
    assert part(result, "vp_loss_per_count") == -loss


def test_r_end_3_iii_7_takes_the_state_as_given(tiles: TileGetter) -> None:
    # 10 resources: +2 VP for resources, -10 for III-7; no servants are spent to dodge it.
    resources = {"wood": 1, "stone": 2, "coins": 3, "servants": 4}
    result = score(ScoringPlayer("a", tiles("III-7"), victory_points=20, resources=resources))
    assert result.total == 20 + 2 - 10


@pytest.mark.parametrize(
    ("tile_id", "player"),
    [
        ("III-5", {"military_points": 30}),
        ("III-7", {"resources": {"coins": 40}}),
        ("III-6", {"building_costs": {"wood": 20, "stone": 20}}),
    ],
)
def test_r_end_4_total_never_below_zero(
    tiles: TileGetter, tile_id: str, player: dict[str, Any]
) -> None:
    result = score(ScoringPlayer("a", tiles(tile_id), victory_points=3, **player))
    assert result.total == 0
    floor = result.parts[-1]
    assert (floor.rule, floor.part) == ("R-END-4", "floor")
    assert sum(p.change for p in result.parts) == 0


def test_r_end_4_every_part_listed_per_player(tiles: TileGetter) -> None:
    players = [
        ScoringPlayer(
            "a",
            tiles("III-4"),
            victory_points=26,
            military_points=6,
            territories=4,
            characters=2,
            venture_points=5,
            resources={"coins": 7, "wood": 3},
        ),
        ScoringPlayer("b", tiles("III-5"), victory_points=10, military_points=4),
    ]
    a, b = final_scores(players)
    assert [(p.rule, p.part, p.change) for p in a.parts] == [
        ("R-END-1", "victory_points", 26),
        ("R-END-2", "vp_loss_per_vp", -5),
        ("R-END-1", "territories", 4),
        ("R-END-1", "characters", 3),
        ("R-END-1", "ventures", 5),
        ("R-END-1", "military", 5),
        ("R-END-1", "resources", 2),
    ]
    assert a.total == 40
    assert [(p.rule, p.part, p.change) for p in b.parts] == [
        ("R-END-1", "victory_points", 10),
        ("R-END-1", "territories", 0),
        ("R-END-1", "characters", 0),
        ("R-END-1", "ventures", 0),
        ("R-END-1", "military", 2),
        ("R-END-1", "resources", 0),
        ("R-END-3", "vp_loss_per_count", -4),
    ]
    assert b.total == 8


def test_r_end_4_a_player_listed_twice_is_invalid() -> None:
    with pytest.raises(InvalidInput):
        final_scores([ScoringPlayer("a"), ScoringPlayer("a")])
