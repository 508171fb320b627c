"""The round track of a game that follows its rounds (R-RND-1 .. R-RND-4).

A game created with ``track_rounds`` knows which of the six rounds is being played and
whether that round's Vatican Report phase has begun; a game without it has no round, and
none of these rules apply to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.domain.errors import LastRound, ReportStillOpen
from app.domain.faith import PERIODS

RoundPhase = Literal["play", "report"]

FIRST_ROUND = 1
LAST_ROUND = 6
#: The rounds that end with a Vatican Report, and the period each report closes (R-REP-1).
REPORT_ROUNDS: dict[int, int] = {period.report_round: period.number for period in PERIODS}


@dataclass(frozen=True, slots=True)
class RoundState:
    """Round ``number`` (1..6), in its ``play`` phase or its Vatican Report phase."""

    number: int
    phase: RoundPhase = "play"


def next_round(current: RoundState, report_open: bool) -> RoundState:
    """R-RND-1, R-RND-3, R-RND-4: the round after ``current``. Round N's play is followed
    by its report phase when N is 2, 4 or 6, else by round N+1; a report phase by the next
    round, but only once its report is resolved (``report_open`` says it is not), and
    never after round 6."""
    if current.phase == "play":
        if current.number in REPORT_ROUNDS:
            return RoundState(current.number, "report")
        return RoundState(current.number + 1)
    period = REPORT_ROUNDS[current.number]
    if report_open:
        raise ReportStillOpen(
            f"Round {current.number} cannot end while the period {period} report is open: "
            "resolve it first (R-RND-3)."
        )
    if current.number == LAST_ROUND:
        raise LastRound(
            f"Round {LAST_ROUND} is the last: the game ends with its Vatican Report (R-RND-4)."
        )
    return RoundState(current.number + 1)


def in_report_phase(current: RoundState, period: int) -> bool:
    """R-RND-2: the report of ``period`` resolves only in its round's report phase."""
    return current.phase == "report" and REPORT_ROUNDS.get(current.number) == period
