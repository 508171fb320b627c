"""Resource keys and small arithmetic on resource bags (plain ``dict[str, int]``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

RESOURCE_KEYS: tuple[str, ...] = (
    "coins",
    "wood",
    "stone",
    "servants",
    "military_points",
    "faith_points",
    "victory_points",
)
# What "left on your board" means for III-7 and the 1 VP per 5 resources of R-END-1.
BOARD_RESOURCES: tuple[str, ...] = ("wood", "stone", "coins", "servants")

Bag = dict[str, int]


def bag(values: Mapping[str, int] | None = None) -> Bag:
    """A bag in canonical key order holding only the keys with a non-zero amount."""
    values = values or {}
    return {key: values[key] for key in RESOURCE_KEYS if values.get(key, 0) != 0}


def add_bags(bags: Iterable[Mapping[str, int]]) -> Bag:
    total: dict[str, int] = {}
    for one in bags:
        for key, amount in one.items():
            total[key] = total.get(key, 0) + amount
    return bag(total)
