"""R-GAIN-1 .. R-GAIN-6: what a player really receives under the "1 fewer" tiles."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.domain.errors import InvalidInput
from app.domain.gains import Gain, WoodOrStone, apply_gains, check_one_tile_per_period
from app.domain.leaders import SANTA_RITA
from app.domain.tiles import Tile

TileGetter = Callable[..., tuple[Tile, ...]]  # the ``tiles`` fixture

NO_LEADERS: frozenset[str] = frozenset()


def test_r_gain_1_each_source_is_its_own_gain(tiles: TileGetter) -> None:
    gains = [
        Gain("action_space", {"coins": 2}),
        Gain("card_immediate", {"coins": 2}),
        Gain("card_permanent", {"coins": 1}, source_name="card A"),
        Gain("card_permanent", {"coins": 1}, source_name="card B"),
        Gain("personal_bonus_tile", {"coins": 2}),
        Gain("council_privilege", {"coins": 2}),
        Gain("leader", {"coins": 3}),
    ]
    result = apply_gains(tiles("I-2"), NO_LEADERS, gains)
    assert [g.result for g in result.gains] == [
        {"coins": 1},
        {"coins": 1},
        {"coins": 0},
        {"coins": 0},
        {"coins": 1},
        {"coins": 1},
        {"coins": 2},
    ]
    assert result.total == {"coins": 6}


def test_r_gain_1_privileges_join_only_a_card_immediate_effect(tiles: TileGetter) -> None:
    with pytest.raises(InvalidInput) as raised:
        apply_gains(
            tiles("I-2"), NO_LEADERS, [Gain("action_space", {}, privileges=({"coins": 2},))]
        )
    assert raised.value.loc == ("gains", 0, "privileges")


def test_r_gain_2_card_immediate_with_privilege_is_one_gain(tiles: TileGetter) -> None:
    gain = Gain("card_immediate", {"coins": 1, "wood": 1}, privileges=({"coins": 2},))
    (outcome,) = apply_gains(tiles("I-2"), NO_LEADERS, [gain]).gains
    assert outcome.received == {"coins": 3, "wood": 1}
    assert outcome.result == {"coins": 2, "wood": 1}  # 1 fewer once, not once per part


def test_r_gain_2_privilege_on_its_own_is_a_separate_gain(tiles: TileGetter) -> None:
    gains = [Gain("card_immediate", {"coins": 1}), Gain("council_privilege", {"coins": 2})]
    assert apply_gains(tiles("I-2"), NO_LEADERS, gains).total == {"coins": 1}


@pytest.mark.parametrize(
    ("tile_id", "resources", "expected"),
    [
        ("I-1", {"military_points": 3}, {"military_points": 2}),
        ("I-1", {"military_points": 1}, {"military_points": 0}),
        ("I-1", {"military_points": 2, "coins": 2}, {"coins": 2, "military_points": 1}),
        ("I-2", {"coins": 5}, {"coins": 4}),
        ("I-2", {"coins": 1}, {"coins": 0}),
        ("I-2", {"wood": 2}, {"wood": 2}),
        ("I-3", {"servants": 2}, {"servants": 1}),
        ("I-3", {"servants": 1, "coins": 1}, {"coins": 1, "servants": 0}),
        ("I-3", {}, {}),
    ],
)
def test_r_gain_3_one_fewer_per_gain_never_below_zero(
    tiles: TileGetter, tile_id: str, resources: dict[str, int], expected: dict[str, int]
) -> None:
    (outcome,) = apply_gains(tiles(tile_id), NO_LEADERS, [Gain("action_space", resources)]).gains
    assert outcome.result == expected


@pytest.mark.parametrize(
    ("resources", "named", "expected"),
    [
        ({"wood": 2, "stone": 2}, None, {"wood": 1, "stone": 2}),  # tie: wood
        ({"wood": 2, "stone": 2}, "stone", {"wood": 2, "stone": 1}),
        ({"wood": 2, "stone": 2}, "wood", {"wood": 1, "stone": 2}),
        ({"wood": 1, "stone": 3}, None, {"wood": 1, "stone": 2}),  # larger amount
        ({"wood": 3, "stone": 1}, None, {"wood": 2, "stone": 1}),
        ({"wood": 1, "stone": 3}, "wood", {"wood": 0, "stone": 3}),
        ({"stone": 2}, "wood", {"stone": 1}),  # named one absent: the other loses
        ({"wood": 2}, "stone", {"wood": 1}),
        ({"wood": 1}, None, {"wood": 0}),
        ({"coins": 2}, "wood", {"coins": 2}),
    ],
)
def test_r_gain_4_wood_and_stone_lose_one(
    tiles: TileGetter,
    resources: dict[str, int],
    named: WoodOrStone | None,
    expected: dict[str, int],
) -> None:
    gain = Gain("action_space", resources, wood_or_stone=named)
    (outcome,) = apply_gains(tiles("I-4"), NO_LEADERS, [gain]).gains
    assert outcome.result == expected
    assert (
        sum(step.change.get("wood", 0) + step.change.get("stone", 0) for step in outcome.steps)
        >= -1
    )


def test_r_gain_4_step_note_explains_the_choice(tiles: TileGetter) -> None:
    gains = [
        Gain("action_space", {"wood": 2, "stone": 2}),
        Gain("action_space", {"wood": 2, "stone": 2}, wood_or_stone="stone"),
        Gain("action_space", {"stone": 2}, wood_or_stone="wood"),
    ]
    notes = [g.steps[0].note for g in apply_gains(tiles("I-4"), NO_LEADERS, gains).gains]
    assert notes[0] is not None and "wood on a tie" in notes[0]
    assert notes[1] is not None and "named by the player" in notes[1]
    assert notes[2] is not None and "not received" in notes[2]


@pytest.mark.parametrize(
    ("tile_id", "resources", "expected"),
    [
        ("I-2", {"coins": 2}, {"coins": 3}),  # 2 doubled to 4, then 1 fewer
        ("I-2", {"coins": 1, "wood": 1}, {"coins": 1, "wood": 2}),
        ("I-3", {"servants": 1}, {"servants": 1}),
        ("I-4", {"wood": 1, "stone": 2}, {"wood": 2, "stone": 3}),
        ("I-1", {"military_points": 2, "coins": 1}, {"coins": 2, "military_points": 1}),
    ],
)
def test_r_gain_5_santa_rita_doubles_then_one_fewer(
    tiles: TileGetter, tile_id: str, resources: dict[str, int], expected: dict[str, int]
) -> None:
    gain = Gain("card_immediate", resources)
    (outcome,) = apply_gains(tiles(tile_id), frozenset({SANTA_RITA}), [gain]).gains
    assert outcome.result == expected
    assert outcome.steps[0].rule == "R-GAIN-5"


@pytest.mark.parametrize(
    "gain",
    [
        Gain("action_space", {"coins": 2}),
        Gain("council_privilege", {"coins": 2}),
        Gain("card_permanent", {"coins": 2}),
        Gain("personal_bonus_tile", {"coins": 2}),
        Gain("leader", {"coins": 2}),
    ],
)
def test_r_gain_5_santa_rita_doubles_only_card_immediate_effects(
    tiles: TileGetter, gain: Gain
) -> None:
    (outcome,) = apply_gains(tiles("I-2"), frozenset({SANTA_RITA}), [gain]).gains
    assert outcome.result == {"coins": 1}


def test_r_gain_5_santa_rita_does_not_double_the_privilege_part(tiles: TileGetter) -> None:
    gain = Gain("card_immediate", {"coins": 1}, privileges=({"coins": 2, "faith_points": 1},))
    (outcome,) = apply_gains(tiles("I-2"), frozenset({SANTA_RITA}), [gain]).gains
    # printed 1 coin doubled to 2, plus 2 from the privilege = 4, then 1 fewer.
    assert outcome.result == {"coins": 3, "faith_points": 1}


def test_r_gain_5_santa_rita_does_not_double_points() -> None:
    gain = Gain("card_immediate", {"military_points": 2, "faith_points": 1, "victory_points": 3})
    (outcome,) = apply_gains((), frozenset({SANTA_RITA}), [gain]).gains
    assert outcome.result == {"military_points": 2, "faith_points": 1, "victory_points": 3}
    assert outcome.steps == ()


def test_r_gain_6_each_gain_explains_itself(tiles: TileGetter) -> None:
    gain = Gain("card_immediate", {"coins": 2, "wood": 1}, source_name="Banker")
    result = apply_gains(tiles("I-2"), frozenset({SANTA_RITA}), [gain])
    (outcome,) = result.gains
    assert outcome.gain is gain
    assert outcome.received == {"coins": 2, "wood": 1}
    assert [(s.rule, s.by, s.change) for s in outcome.steps] == [
        ("R-GAIN-5", "santa_rita", {"coins": 2, "wood": 1}),
        ("R-GAIN-3", "I-2", {"coins": -1}),
    ]
    assert outcome.result == {"coins": 3, "wood": 2}
    assert result.total == {"coins": 3, "wood": 2}


def test_r_gain_6_no_tile_no_step(tiles: TileGetter) -> None:
    # Tiles of other kinds never touch a gain.
    (outcome,) = apply_gains(
        tiles("I-5", "II-6", "III-7"), NO_LEADERS, [Gain("action_space", {"coins": 3})]
    ).gains
    assert outcome.steps == ()
    assert outcome.result == {"coins": 3}


def test_r_gain_6_one_tile_per_period_check(tiles: TileGetter) -> None:
    check_one_tile_per_period(tiles("I-2", "II-1", "III-4"), ("excommunications",))
    with pytest.raises(InvalidInput) as raised:
        check_one_tile_per_period(tiles("I-2", "II-1", "I-3"), ("excommunications",))
    assert raised.value.loc == ("excommunications", 2)


@pytest.mark.parametrize(
    ("gain", "loc"),
    [
        (Gain("action_space", {"coins": -1}), ("gains", 0, "resources", "coins")),
        (
            Gain("card_immediate", {"wood": 1}, privileges=({"stone": 1}, {"servants": -2})),
            ("gains", 0, "privileges", 1, "servants"),
        ),
    ],
)
def test_r_gain_1_negative_amounts_are_invalid(
    tiles: TileGetter, gain: Gain, loc: tuple[str | int, ...]
) -> None:
    with pytest.raises(InvalidInput) as raised:
        apply_gains(tiles("I-2"), frozenset({SANTA_RITA}), [gain])
    assert raised.value.loc == loc
