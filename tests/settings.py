"""Settings the suites share."""

from __future__ import annotations

import os

#: The rate limits off, for suites that create many games (and change them fast) from one
#: address; the limits' own tests are in tests/limits.
LIMITS_OFF: dict[str, float] = {
    "game_creation_rate": 0,
    "game_write_rate": 0,
    "player_write_rate": 0,
}


#: ``TESTS_FAST=1`` (the README's fast subset) runs each property test on a tenth of its
#: examples; CI and the full suite run them all.
FAST = os.environ.get("TESTS_FAST", "") not in ("", "0")


def examples(full: int) -> int:
    """How many examples a property test tries: ``full``, or a tenth in the fast subset."""
    return max(5, full // 10) if FAST else full
