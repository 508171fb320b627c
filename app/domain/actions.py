"""The value of an action under excommunications (R-ACT-1 .. R-ACT-6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.domain.effects import (
    Action,
    ActionValueChange,
    ColouredMemberChange,
    ForbiddenArea,
    ServantRate,
)
from app.domain.errors import InvalidInput
from app.domain.tiles import Tile

Origin = Literal["family_member", "card_effect"]
FamilyMember = Literal["black", "white", "orange", "neutral"]

LARGE_SPACE_PENALTY = -3  # the rulebook's own malus on the large Harvest/Production space
ACTION_RULES = {
    "harvest": "R-ACT-3",
    "production": "R-ACT-3",
    "territory": "R-ACT-4",
    "building": "R-ACT-4",
    "character": "R-ACT-4",
    "venture": "R-ACT-4",
}


@dataclass(frozen=True, slots=True)
class ActionRequest:
    action: Action
    origin: Origin
    family_member: FamilyMember | None = None
    die: int | None = None
    base_value: int | None = None
    large_space: bool = False
    servants_spent: int = 0
    modifier: int = 0
    required_value: int | None = None


@dataclass(frozen=True, slots=True)
class ValueStep:
    rule: str
    by: str
    change: int
    value: int
    note: str | None = None


@dataclass(frozen=True, slots=True)
class ActionValue:
    allowed: bool
    value: int
    reaches_required: bool | None
    steps: tuple[ValueStep, ...]


class _Steps:
    """A running value with the step that explains each change."""

    def __init__(self) -> None:
        self.value = 0
        self.steps: list[ValueStep] = []

    def add(self, rule: str, by: str, change: int, note: str | None = None) -> None:
        self.value += change
        self.steps.append(ValueStep(rule, by, change, self.value, note))


def _check(request: ActionRequest) -> None:
    if request.origin == "family_member":
        if request.family_member is None:
            raise InvalidInput(
                "a family member action names the family_member", loc=("family_member",)
            )
        if request.family_member != "neutral" and request.die is None:
            raise InvalidInput("a coloured family member needs the die value", loc=("die",))
        if request.base_value is not None:
            raise InvalidInput("base_value is for card effects only", loc=("base_value",))
    else:
        if request.base_value is None:
            raise InvalidInput("a card-effect action gives its base_value", loc=("base_value",))
        if request.family_member is not None or request.die is not None:
            raise InvalidInput(
                "a card-effect action places no family member", loc=("family_member",)
            )
    if request.die is not None and not 1 <= request.die <= 6:
        raise InvalidInput("a die shows 1 to 6", loc=("die",))
    if request.large_space and request.action not in ("harvest", "production"):
        raise InvalidInput("only Harvest and Production have a large space", loc=("large_space",))
    if request.large_space and request.origin != "family_member":
        raise InvalidInput("a card-effect action uses no action space", loc=("large_space",))
    if request.servants_spent < 0:
        raise InvalidInput("servants spent cannot be negative", loc=("servants_spent",))


def action_value(tiles: Sequence[Tile], request: ActionRequest) -> ActionValue:
    """Compute an action's value step by step (R-ACT-6) from the die or the card's value
    (R-ACT-1), coloured-member changes (R-ACT-1, I-7), the large space and action value
    changes (R-ACT-3, R-ACT-4), servants (R-ACT-2) and forbidden areas (R-ACT-5)."""
    _check(request)
    run = _Steps()
    if request.origin == "family_member":
        member = request.family_member
        die = 0 if member == "neutral" else (request.die or 0)
        run.add(
            "R-ACT-1",
            f"family_member:{member}",
            die,
            "neutral member is worth 0" if die == 0 and member == "neutral" else None,
        )
        if member != "neutral":
            for tile in tiles:
                if isinstance(tile.effect, ColouredMemberChange):
                    _coloured_member_change(run, tile.id, tile.effect)
    else:
        run.add("R-ACT-1", "card_effect", request.base_value or 0, "value printed on the card")

    if request.modifier:
        run.add(
            "input", "modifier", request.modifier, "other bonuses and penalties given by the client"
        )
    if request.large_space:
        run.add("R-ACT-3", "large_space", LARGE_SPACE_PENALTY, "the large space's own -3")
    for tile in tiles:
        if isinstance(tile.effect, ActionValueChange):
            _action_value_change(run, tile.id, tile.effect, request.action)

    rate = 1
    rate_by = "servants"
    for tile in tiles:
        if isinstance(tile.effect, ServantRate):
            rate, rate_by = _servant_rate(tile.effect, rate), tile.id
    if request.servants_spent:
        raised = request.servants_spent // rate
        note = f"{request.servants_spent} servants at 1 per {rate}" if rate > 1 else None
        run.add("R-ACT-2", rate_by, raised, note)

    if run.value < 0:
        run.add("R-ACT-6", "floor", -run.value, "a value is never below 0")

    allowed = True
    for tile in tiles:
        if isinstance(tile.effect, ForbiddenArea) and not _forbidden_area_allows(
            tile.effect, request.action
        ):
            allowed = False
            run.add("R-ACT-5", tile.id, 0, f"may not place in the {request.action}")

    reaches: bool | None = None
    if request.required_value is not None:
        reaches = allowed and run.value >= request.required_value
    return ActionValue(
        allowed=allowed, value=run.value, reaches_required=reaches, steps=tuple(run.steps)
    )


def _coloured_member_change(run: _Steps, tile_id: str, effect: ColouredMemberChange) -> None:
    run.add("R-ACT-1", tile_id, effect.amount, "coloured family member")


def _action_value_change(run: _Steps, tile_id: str, effect: ActionValueChange, action: str) -> None:
    if action in effect.actions:
        run.add(ACTION_RULES.get(action, "R-ACT-6"), tile_id, effect.amount)


def _servant_rate(effect: ServantRate, current: int) -> int:
    return max(current, effect.servants_per_point)


def _forbidden_area_allows(effect: ForbiddenArea, action: str) -> bool:
    return effect.action != action
