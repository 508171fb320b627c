"""R-ACT-1 .. R-ACT-6: the value of an action under excommunications."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import pytest

from app.domain.actions import Action, ActionRequest, action_value
from app.domain.errors import InvalidInput
from app.domain.tiles import Tile

TileGetter = Callable[..., tuple[Tile, ...]]  # the ``tiles`` fixture


def member(action: Action, die: int, colour: str = "black", **extra: object) -> ActionRequest:
    return ActionRequest(action, "family_member", colour, die=die, **extra)  # type: ignore[arg-type]


def card(action: Action, base_value: int, **extra: object) -> ActionRequest:
    return ActionRequest(action, "card_effect", base_value=base_value, **extra)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ids", "request_", "value"),
    [
        ((), member("territory", 5), 5),
        ((), ActionRequest("market", "family_member", "neutral"), 0),
        (("I-7",), member("territory", 5), 4),
        (("I-7",), member("market", 1, "white"), 0),
        (("I-7",), ActionRequest("market", "family_member", "neutral"), 0),
        (("I-7",), card("harvest", 4), 4),  # no member placed
        (("I-7",), ActionRequest("market", "family_member", "neutral", servants_spent=2), 2),
    ],
)
def test_r_act_1_member_value_and_i_7(
    tiles: TileGetter, ids: tuple[str, ...], request_: ActionRequest, value: int
) -> None:
    assert action_value(tiles(*ids), request_).value == value


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (ActionRequest("market", "family_member"), "family_member"),
        (ActionRequest("market", "family_member", "black"), "die"),
        (ActionRequest("market", "family_member", "black", die=7), "die"),
        (ActionRequest("market", "family_member", "black", die=0), "die"),
        (ActionRequest("market", "family_member", "black", die=3, base_value=3), "base_value"),
        (ActionRequest("harvest", "card_effect"), "base_value"),
        (ActionRequest("harvest", "card_effect", "black", base_value=3), "family_member"),
        (ActionRequest("market", "family_member", "black", die=3, large_space=True), "large_space"),
        (ActionRequest("harvest", "card_effect", base_value=3, large_space=True), "large_space"),
        (
            ActionRequest("market", "family_member", "black", die=3, servants_spent=-1),
            "servants_spent",
        ),
    ],
)
def test_r_act_1_inconsistent_requests_are_invalid(request_: ActionRequest, field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        action_value((), request_)
    assert raised.value.loc == (field,)


@pytest.mark.parametrize(
    ("ids", "servants", "value"),
    [
        ((), 0, 3),
        ((), 1, 4),
        ((), 3, 6),
        (("II-6",), 1, 3),
        (("II-6",), 2, 4),
        (("II-6",), 3, 4),  # 3 servants add 1
        (("II-6",), 4, 5),
        (("II-6",), 5, 5),
    ],
)
def test_r_act_2_servants_and_ii_6(
    tiles: TileGetter, ids: tuple[str, ...], servants: int, value: int
) -> None:
    result = action_value(tiles(*ids), member("building", 3, servants_spent=servants))
    assert result.value == value


@pytest.mark.parametrize(
    ("ids", "request_", "value"),
    [
        (("I-5",), member("harvest", 5), 2),
        (("I-5",), member("harvest", 2), 0),  # floored
        (("I-5",), member("production", 5), 5),
        (("I-6",), member("production", 6), 3),
        (("I-6",), member("harvest", 6), 6),
        (("I-5",), card("harvest", 4), 1),  # card-granted Harvest too
        (("I-6",), card("production", 2), 0),
        ((), member("harvest", 6, large_space=True), 3),  # the large space's own -3
    ],
)
def test_r_act_3_harvest_and_production_worth_three_less(
    tiles: TileGetter, ids: tuple[str, ...], request_: ActionRequest, value: int
) -> None:
    assert action_value(tiles(*ids), request_).value == value


@pytest.mark.parametrize(("die", "value"), [(1, 0), (5, 0), (6, 0)])
def test_r_act_3_large_space_harvest_under_i_5_is_die_minus_six(
    tiles: TileGetter, die: int, value: int
) -> None:
    assert value == max(die - 6, 0)
    result = action_value(tiles("I-5"), member("harvest", die, large_space=True))
    assert result.value == value
    changes = [(s.by, s.change) for s in result.steps]
    assert ("large_space", -3) in changes and ("I-5", -3) in changes


@pytest.mark.parametrize(("die", "servants", "value"), [(6, 3, 3), (4, 5, 3), (2, 0, 0)])
def test_r_act_3_large_space_production_under_i_6_with_servants(
    tiles: TileGetter, die: int, servants: int, value: int
) -> None:
    request_ = member("production", die, large_space=True, servants_spent=servants)
    assert action_value(tiles("I-6"), request_).value == value


@pytest.mark.parametrize(
    ("tile_id", "action"),
    [("II-1", "territory"), ("II-2", "building"), ("II-3", "character"), ("II-4", "venture")],
)
def test_r_act_4_taking_that_card_type_is_worth_four_less(
    tiles: TileGetter, tile_id: str, action: Action
) -> None:
    assert action_value(tiles(tile_id), member(action, 6)).value == 2
    assert action_value(tiles(tile_id), card(action, 7)).value == 3  # card-granted too
    assert action_value(tiles(tile_id), member(action, 3)).value == 0
    others = [a for a in ("territory", "building", "character", "venture") if a != action]
    for other in others:
        assert action_value(tiles(tile_id), member(other, 6)).value == 6  # type: ignore[arg-type]


def test_r_act_4_step_names_the_rule_and_tile(tiles: TileGetter) -> None:
    result = action_value(tiles("II-3"), member("character", 6))
    assert [(s.rule, s.by, s.change, s.value) for s in result.steps] == [
        ("R-ACT-1", "family_member:black", 6, 6),
        ("R-ACT-4", "II-3", -4, 2),
    ]


@pytest.mark.parametrize("action", ["market"])
def test_r_act_5_market_not_allowed_under_ii_5(tiles: TileGetter, action: Action) -> None:
    result = action_value(tiles("II-5"), member(action, 6, required_value=1))
    assert result.allowed is False
    assert result.reaches_required is False
    assert any(s.rule == "R-ACT-5" and s.by == "II-5" for s in result.steps)


@pytest.mark.parametrize("action", ["harvest", "council_palace", "territory"])
def test_r_act_5_other_areas_still_allowed_under_ii_5(tiles: TileGetter, action: Action) -> None:
    assert action_value(tiles("II-5"), member(action, 6)).allowed is True


@pytest.mark.parametrize(
    ("request_", "reaches"),
    [
        (member("territory", 3, required_value=3), True),
        (member("territory", 3, required_value=4), False),
        (member("territory", 3, required_value=4, servants_spent=1), True),
        (member("territory", 3), None),
        (member("territory", 3, modifier=2, required_value=5), True),
        (member("territory", 3, modifier=-2, required_value=1), True),
    ],
)
def test_r_act_6_reaches_required_value(request_: ActionRequest, reaches: bool | None) -> None:
    assert action_value((), request_).reaches_required is reaches


def test_r_act_6_steps_explain_every_change_and_floor_after_servants(tiles: TileGetter) -> None:
    request_ = member("harvest", 2, large_space=True, servants_spent=3, required_value=1)
    result = action_value(tiles("I-5", "II-6", "I-7"), request_)
    assert [(s.rule, s.by, s.change, s.value) for s in result.steps] == [
        ("R-ACT-1", "family_member:black", 2, 2),
        ("R-ACT-1", "I-7", -1, 1),
        ("R-ACT-3", "large_space", -3, -2),
        ("R-ACT-3", "I-5", -3, -5),
        ("R-ACT-2", "II-6", 1, -4),
        ("R-ACT-6", "floor", 4, 0),
    ]
    assert (result.value, result.allowed, result.reaches_required) == (0, True, False)
    steps = result.steps
    assert all(b.value == a.value + b.change for a, b in pairwise(steps))
