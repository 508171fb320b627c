"""Leader cards that change the Vatican Report or gains (R-REP-8, R-REP-9, R-GAIN-5), and
the leaders a player holds (R-PLY-2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from app.domain.errors import InvalidInput

SISTO_IV = "sisto_iv"
SANTA_RITA = "santa_rita"
MARTIN_LUTERO = "martin_lutero"  # Houses of Renaissance

LeaderId = Literal["sisto_iv", "santa_rita", "martin_lutero"]
LEADERS: tuple[str, ...] = get_args(LeaderId)
#: A player holds each leader at most once, so at most every leader there is.
MAX_LEADERS = len(LEADERS)
LEADER_TWICE = "a leader is listed twice"


def repeated_leader(leaders: Sequence[str]) -> int | None:
    """R-PLY-2: the index of the first leader a player's list names a second time; None
    when each is named once."""
    seen: set[str] = set()
    for index, leader in enumerate(leaders):
        if leader in seen:
            return index
        seen.add(leader)
    return None


def check_leaders(leaders: Sequence[str], loc: tuple[str | int, ...]) -> None:
    """R-PLY-2: a player's leaders, each once; else invalid input at ``loc``."""
    if repeated_leader(leaders) is not None:
        raise InvalidInput(LEADER_TWICE, loc=loc)
