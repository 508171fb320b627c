"""The effect kinds a tile can carry. Tiles are data; these are the only shapes they take.

Every calculation applies an effect through the one function written for its kind
(see gains.py, actions.py, order.py, scoring.py); no code branches on tile ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Literal, get_args


class EffectKind(StrEnum):
    GAIN_REDUCTION = "gain_reduction"
    ACTION_VALUE_CHANGE = "action_value_change"
    COLOURED_MEMBER_CHANGE = "coloured_member_change"
    FORBIDDEN_AREA = "forbidden_area"
    SERVANT_RATE = "servant_rate"
    SKIP_FIRST_TURN = "skip_first_turn"
    NO_END_SCORING = "no_end_scoring"
    VP_LOSS_PER_VP = "vp_loss_per_vp"
    VP_LOSS_PER_COUNT = "vp_loss_per_count"


Action = Literal[
    "harvest",
    "production",
    "territory",
    "building",
    "character",
    "venture",
    "market",
    "council_palace",
]
ACTIONS: tuple[str, ...] = get_args(Action)
CardType = Literal["territories", "characters", "ventures"]
CARD_TYPES: tuple[str, ...] = get_args(CardType)
# Things a player can be counted on at the end of the game (III-5, III-6, III-7).
Countable = Literal[
    "military_points",
    "building_costs.wood",
    "building_costs.stone",
    "resources.wood",
    "resources.stone",
    "resources.coins",
    "resources.servants",
]
COUNTABLES: tuple[str, ...] = get_args(Countable)
ReducibleResource = Literal["coins", "wood", "stone", "servants", "military_points"]
REDUCIBLE_RESOURCES: tuple[str, ...] = get_args(ReducibleResource)


@dataclass(frozen=True, slots=True)
class GainReduction:
    """Per gain, each listed resource is reduced by ``amount`` (R-GAIN-3); with
    ``choose_one`` only one of them is, chosen by the player (R-GAIN-4)."""

    resources: tuple[str, ...]
    amount: int = 1
    choose_one: bool = False
    kind: EffectKind = field(default=EffectKind.GAIN_REDUCTION, init=False)


@dataclass(frozen=True, slots=True)
class ActionValueChange:
    """Every action of these kinds is worth ``amount`` more (negative: less); R-ACT-3/4."""

    actions: tuple[str, ...]
    amount: int
    kind: EffectKind = field(default=EffectKind.ACTION_VALUE_CHANGE, init=False)


@dataclass(frozen=True, slots=True)
class ColouredMemberChange:
    """Each coloured Family Member is worth ``amount`` more when placed; R-ACT-1."""

    amount: int
    kind: EffectKind = field(default=EffectKind.COLOURED_MEMBER_CHANGE, init=False)


@dataclass(frozen=True, slots=True)
class ForbiddenArea:
    """The player may not place in this area; R-ACT-5."""

    action: str
    kind: EffectKind = field(default=EffectKind.FORBIDDEN_AREA, init=False)


@dataclass(frozen=True, slots=True)
class ServantRate:
    """Servants add 1 to a value only per ``servants_per_point`` spent; R-ACT-2."""

    servants_per_point: int
    kind: EffectKind = field(default=EffectKind.SERVANT_RATE, init=False)


@dataclass(frozen=True, slots=True)
class SkipFirstTurn:
    """Skip the first turn of each round, place the last member after everyone; R-ORD-1."""

    kind: EffectKind = field(default=EffectKind.SKIP_FIRST_TURN, init=False)


@dataclass(frozen=True, slots=True)
class NoEndScoring:
    """Cards of this type score nothing at the end of the game; R-END-3."""

    card_type: str
    kind: EffectKind = field(default=EffectKind.NO_END_SCORING, init=False)


@dataclass(frozen=True, slots=True)
class VpLossPerVp:
    """Before final scoring, lose ``amount`` VP for every ``per`` VP on the track; R-END-2."""

    per: int
    amount: int = 1
    kind: EffectKind = field(default=EffectKind.VP_LOSS_PER_VP, init=False)


@dataclass(frozen=True, slots=True)
class VpLossPerCount:
    """Lose ``amount`` VP for every ``per`` of the counted things together; R-END-3."""

    counts: tuple[str, ...]
    per: int = 1
    amount: int = 1
    kind: EffectKind = field(default=EffectKind.VP_LOSS_PER_COUNT, init=False)


Effect = (
    GainReduction
    | ActionValueChange
    | ColouredMemberChange
    | ForbiddenArea
    | ServantRate
    | SkipFirstTurn
    | NoEndScoring
    | VpLossPerVp
    | VpLossPerCount
)


def effect_as_dict(effect: Effect) -> dict[str, Any]:
    """The effect as JSON-ready data: ``{"kind": ..., <parameters>}``."""
    data: dict[str, Any] = {"kind": effect.kind.value}
    for parameter in fields(effect):
        if parameter.name == "kind":
            continue
        value = getattr(effect, parameter.name)
        data[parameter.name] = list(value) if isinstance(value, tuple) else value
    return data
