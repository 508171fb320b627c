"""The Faith track and the three periods (R-FT-1, R-FT-2, R-REP-1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

MAX_FAITH = 15

# R-FT-1: Victory Points paid when supporting the Church from each step 0..15.
FAITH_VICTORY_POINTS: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 7, 9, 11, 13, 15, 17, 19, 22, 25, 30)

SISTO_IV_BONUS = 5
#: R-FT-4: the most faith a client may send, in a stored game or a calculation alike: far
#: above the track (above 15 is lost, R-FT-2), never a table's count.
MAX_FAITH_SENT = 1000


@dataclass(frozen=True, slots=True)
class Period:
    """A period of two rounds, closed by a Vatican Report at the end of its second round."""

    number: int
    report_round: int
    threshold: int


# R-REP-1: reports at the end of rounds 2, 4 and 6 with thresholds 3, 4 and 5.
PERIODS: tuple[Period, ...] = (
    Period(number=1, report_round=2, threshold=3),
    Period(number=2, report_round=4, threshold=4),
    Period(number=3, report_round=6, threshold=5),
)
LAST_PERIOD = 3
#: A period's number where a value carries one (1, 2 or 3): the contract lists them.
PeriodNumber = Annotated[int, "a period: 1, 2 or 3"]


def period_info(number: int) -> Period:
    """The period with that number (1..3); R-REP-1. Raises KeyError for any other."""
    for period in PERIODS:
        if period.number == number:
            return period
    raise KeyError(number)


@dataclass(frozen=True, slots=True)
class CappedFaith:
    faith: int
    lost: int


def cap_faith(value: int) -> CappedFaith:
    """R-FT-2: faith beyond 15 is lost; returns the kept value and how much was lost.

    Negative faith is not a game state; callers validate it before (it is a 422).
    """
    if value < 0:
        raise ValueError("faith cannot be negative")
    kept = min(value, MAX_FAITH)
    return CappedFaith(faith=kept, lost=value - kept)


def faith_sent_error(value: int) -> str | None:
    """R-FT-4: why a faith value a client sent is refused (negative, or above
    MAX_FAITH_SENT); None when it is taken."""
    if value < 0:
        return "faith cannot be negative"
    if value > MAX_FAITH_SENT:
        return f"faith is at most {MAX_FAITH_SENT} (above 15 is lost, R-FT-2)"
    return None


def faith_victory_points(faith: int) -> int:
    """R-FT-1: the VP under the disc at that step (faith above 15 counts as 15)."""
    return FAITH_VICTORY_POINTS[min(max(faith, 0), MAX_FAITH)]


def add_faith(faith: int, delta: int) -> CappedFaith:
    """R-FT-3: ``delta`` added to ``faith``, kept within the track: above 15 is lost
    (R-FT-2), and a removal stops at 0 (the rest of it is dropped, not counted as lost)."""
    return cap_faith(max(faith + delta, 0))
