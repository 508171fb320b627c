"""What a player really receives from each gain under "1 fewer" tiles (R-GAIN-1 .. R-GAIN-6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from app.domain.effects import GainReduction
from app.domain.errors import InvalidInput
from app.domain.leaders import SANTA_RITA
from app.domain.resources import Bag, add_bags, bag
from app.domain.tiles import Tile

SourceKind = Literal[
    "action_space",
    "card_immediate",
    "card_permanent",
    "personal_bonus_tile",
    "council_privilege",
    "leader",
]
WoodOrStone = Literal["wood", "stone"]

# R-GAIN-5: what Santa Rita doubles, and only on a card's immediate effect.
SANTA_RITA_DOUBLES: tuple[str, ...] = ("wood", "stone", "coins", "servants")


@dataclass(frozen=True, slots=True)
class Gain:
    """One source delivering things at once (R-GAIN-1)."""

    source_kind: SourceKind
    resources: Mapping[str, int]
    source_name: str | None = None
    privileges: tuple[Mapping[str, int], ...] = ()
    wood_or_stone: WoodOrStone | None = None


@dataclass(frozen=True, slots=True)
class GainStep:
    rule: str
    by: str
    change: Bag
    note: str | None = None


@dataclass(frozen=True, slots=True)
class GainOutcome:
    gain: Gain
    received: Bag
    steps: tuple[GainStep, ...]
    result: Bag


@dataclass(frozen=True, slots=True)
class GainsResult:
    gains: tuple[GainOutcome, ...]
    total: Bag


def check_one_tile_per_period(tiles: Sequence[Tile], loc: tuple[str | int, ...]) -> None:
    """R-REP-7: a player is excommunicated at most once per period, so holds one tile each."""
    seen: dict[int, str] = {}
    for index, tile in enumerate(tiles):
        if tile.period in seen:
            raise InvalidInput(
                f"{seen[tile.period]} and {tile.id} are both period {tile.period} tiles: a player "
                "is excommunicated at most once per period",
                loc=(*loc, index),
            )
        seen[tile.period] = tile.id


def apply_gains(
    tiles: Sequence[Tile], leaders: frozenset[str], gains: Sequence[Gain]
) -> GainsResult:
    """Apply Santa Rita (R-GAIN-5) and then every "1 fewer" tile (R-GAIN-3, R-GAIN-4) to each
    gain on its own (R-GAIN-1, R-GAIN-2), recording every step (R-GAIN-6)."""
    reductions = [(t.id, t.effect) for t in tiles if isinstance(t.effect, GainReduction)]
    doubles = SANTA_RITA in leaders
    outcomes = tuple(
        _apply_one(reductions, doubles, gain, index) for index, gain in enumerate(gains)
    )
    return GainsResult(gains=outcomes, total=add_bags(o.result for o in outcomes))


def _apply_one(
    reductions: Sequence[tuple[str, GainReduction]], doubles: bool, gain: Gain, index: int
) -> GainOutcome:
    if gain.privileges and gain.source_kind != "card_immediate":
        raise InvalidInput(
            "privileges join a gain only on a card's immediate effect (R-GAIN-2); "
            "a privilege taken on its own is its own gain",
            loc=("gains", index, "privileges"),
        )
    _check_not_negative(gain.resources, ("gains", index, "resources"))
    for n, privilege in enumerate(gain.privileges):
        _check_not_negative(privilege, ("gains", index, "privileges", n))
    # R-GAIN-2: the privileges' resources join the card's immediate effect as one gain.
    received = (
        add_bags([gain.resources, *gain.privileges]) if gain.privileges else bag(gain.resources)
    )
    # Every step changes only what was received, so `current` keeps the received keys in
    # their order (at 0 once a key is all lost) and is the result as it stands.
    current = dict(received)
    steps: list[GainStep] = []

    if doubles and gain.source_kind == "card_immediate":
        change = bag({k: gain.resources.get(k, 0) for k in SANTA_RITA_DOUBLES})
        if change:
            steps.append(GainStep("R-GAIN-5", SANTA_RITA, change, "printed resources doubled"))
            _add_to(current, change)

    for tile_id, effect in reductions:
        step = _reduce(tile_id, effect, current, gain.wood_or_stone)
        if step is not None:
            steps.append(step)
            _add_to(current, step.change)

    return GainOutcome(gain=gain, received=received, steps=tuple(steps), result=current)


def _check_not_negative(part: Mapping[str, int], loc: tuple[str | int, ...]) -> None:
    for key, amount in part.items():
        if amount < 0:
            # A negative "gain" would be doubled by Santa Rita and dodge the reductions.
            raise InvalidInput(f"{key} cannot be negative in a gain", loc=(*loc, key))


def _add_to(current: Bag, change: Mapping[str, int]) -> None:
    for key, amount in change.items():
        current[key] += amount


def _reduce(
    tile_id: str, effect: GainReduction, current: Mapping[str, int], named: WoodOrStone | None
) -> GainStep | None:
    """The one function for the gain_reduction kind: 1 fewer per gain, never below 0."""
    if not effect.choose_one:
        change = {
            key: -min(effect.amount, current.get(key, 0))
            for key in effect.resources
            if current.get(key, 0) > 0
        }
        return GainStep("R-GAIN-3", tile_id, bag(change)) if change else None

    # R-GAIN-4: only one of the resources loses, the one the player names; unnamed, the one
    # received in the larger amount, the first listed (wood) on a tie.
    present = [key for key in effect.resources if current.get(key, 0) > 0]
    if not present:
        return None
    note: str
    target: str
    if named is not None and named in present:
        target = named
        note = f"{target} named by the player"
    else:
        target = max(present, key=lambda key: (current[key], -effect.resources.index(key)))
        if named is not None:
            note = f"{named} was named but not received in this gain, so {target} loses"
        else:
            note = f"none named: {target}, the larger amount (wood on a tie), loses"
    change = {target: -min(effect.amount, current[target])}
    return GainStep("R-GAIN-4", tile_id, bag(change), note)
