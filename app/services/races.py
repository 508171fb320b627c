"""Use cases that read their game without a lock and run again when another writer stored
first (where writers run side by side: PostgreSQL); the last attempt locks the game."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from functools import wraps
from typing import ParamSpec, TypeVar

from prometheus_client import Counter

from app.services.storage import LostRace, WouldWait

P = ParamSpec("P")
R = TypeVar("R")

#: Tries of a use case marked ``reruns_lost_races``; the last one locks the game's row.
RACE_ATTEMPTS = 4
# Set by reruns_lost_races for the attempts that may read without a lock.
_unlocked_attempt: ContextVar[bool] = ContextVar("unlocked_attempt", default=False)


LOST_RACES = Counter(
    "game_change_reruns_total",
    "Changes run again because another writer stored a change to their game first "
    "(PostgreSQL; the fourth attempt locks the game).",
)


def unlocked_attempt() -> bool:
    """True inside an attempt of a ``reruns_lost_races`` use case that may read unlocked."""
    return _unlocked_attempt.get()


def reruns_lost_races(use_case: Callable[P, R]) -> Callable[P, R]:
    """Mark a use case that changes one game through ``GameTransactions.changing`` and
    nothing else, so may run again from the start: its change reads the game without a
    lock (PostgreSQL) and, when another writer stored first, it runs again on the newer
    game. Its last attempt locks the row, so a game under heavy contention still makes
    progress, and every answer (a 412 included) comes from the version it was stored
    on, as with a lock from the start."""

    @wraps(use_case)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        for attempt in range(1, RACE_ATTEMPTS + 1):
            unlocked = _unlocked_attempt.set(attempt < RACE_ATTEMPTS)
            try:
                return use_case(*args, **kwargs)
            except LostRace:
                LOST_RACES.inc()
                continue
            finally:
                _unlocked_attempt.reset(unlocked)
        raise AssertionError("the last attempt locks: it cannot lose a race")

    return run


async def rerun_lost_races_on_the_loop(attempt: Callable[[], Awaitable[R]]) -> R:
    """What ``attempt`` answers: a change run on the event loop, which reads its game
    first and stores it last, run again while another writer stored first, as
    ``reruns_lost_races`` runs one on a thread. After ``RACE_ATTEMPTS - 1`` lost races,
    ``WouldWait``: the request goes to a thread, whose last attempt locks the game."""
    for _ in range(RACE_ATTEMPTS - 1):
        try:
            return await attempt()
        except LostRace:
            LOST_RACES.inc()
    raise WouldWait("another writer stored first, each time")
