"""Rate limits: game creation per client address, changes per seat of a game (GCRA).

The generic cell rate algorithm keeps one number per key, the theoretical arrival time
(TAT) of its next request: a request at ``now`` is admitted while ``TAT - now`` stays within
the burst's tolerance, and moves the TAT one interval on. The TAT lives in the database and
moves in the same transaction as the write it admits (``creation_limits`` by address, the
game's row for its seats), so every replica sharing the database enforces the same limit
and a refused or rolled-back write costs nothing.

A game's changes are budgeted per seat (``WriteLimits``): the host has a rate of its own
and each player another, and a player seat may log only a share of the game's event log.
So a player's token can spend only its own seat's share: however it flips its decision,
the host can still resolve, correct and finish the game.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.services.errors import EventLimitReached, SeatEventLimitReached, TooManyRequests
from app.services.storage import CreationLimits


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Rate:
    """``per_minute`` requests a minute on average, ``burst`` of them at once; a rate of 0
    is no limit."""

    per_minute: float
    burst: int

    @property
    def on(self) -> bool:
        return self.per_minute > 0

    @property
    def interval_ms(self) -> int:
        """The time one request uses up."""
        return max(1, round(60_000 / self.per_minute))

    @property
    def tolerance_ms(self) -> int:
        """How far ahead of now the TAT may be and still admit a request."""
        return self.interval_ms * (self.burst - 1)

    def admit(self, tat_ms: int, now: int) -> int | None:
        """The key's next TAT when a request at ``now`` is admitted, else None."""
        start = max(tat_ms, now)
        if start - now > self.tolerance_ms:
            return None
        return start + self.interval_ms

    def retry_after(self, tat_ms: int, now: int) -> int:
        """Whole seconds until a refused request would be admitted (at least 1)."""
        return max(1, math.ceil((tat_ms - self.tolerance_ms - now) / 1000))


UNLIMITED = Rate(0, 1)


def limit_game_creation(limits: CreationLimits, rate: Rate, address: str) -> None:
    """Admit one game creation from ``address`` in the unit of work that stores the game
    (whose ``limits`` these are), or raise 429 ``too-many-requests``."""
    if not rate.on:
        return
    now = now_ms()
    if limits.admit(address, now, rate.interval_ms, rate.tolerance_ms):
        return
    tat = limits.tat(address)
    raise TooManyRequests(
        f"Too many games created from {address}: at most {rate.burst} at once and "
        f"{rate.per_minute:g} a minute.",
        retry_after=rate.retry_after(now if tat is None else tat, now),
    )


def limit_game_write(rate: Rate, game_id: str, tat_ms: int, now: int, seat: str = "") -> int:
    """The seat's next TAT when a change at ``now`` is admitted, or 429."""
    if not rate.on:
        return tat_ms
    admitted = rate.admit(tat_ms, now)
    if admitted is None:
        raise TooManyRequests(
            f"Too many changes to game {game_id}{seat}: at most {rate.burst} at once and "
            f"{rate.per_minute:g} a minute.",
            retry_after=rate.retry_after(tat_ms, now),
        )
    return admitted


#: Of a game's event log, the share one player seat may fill: with the most players a game
#: seats, the players together fill at most half, so the rest is always the host's.
PLAYER_SHARE_OF_EVENTS = 10


@dataclass(frozen=True, slots=True)
class WriteLimits:
    """The budgets of a game's changes: the host's rate, each player's rate, the game's
    event log and each player seat's share of it."""

    # No defaults: the budgets are settings (app/settings.py declares their defaults once),
    # made into this by app/composition.py.
    host: Rate
    player: Rate
    max_events: int
    max_player_events: int

    @property
    def player_events(self) -> int:
        """The changes one player seat may log: its setting, within its share of the log."""
        return max(1, min(self.max_player_events, self.max_events // PLAYER_SHARE_OF_EVENTS))


def check_log_room(limits: WriteLimits, game_id: str, version: int) -> None:
    """409 once the game's log is full."""
    if version >= limits.max_events:
        raise EventLimitReached(
            f"Game {game_id} has logged {version} changes, the most a game may; it can "
            "still be read."
        )


@dataclass(frozen=True, slots=True)
class SeatSpend:
    """What one player seat has spent of a game's budgets: its TAT and its changes."""

    tat_ms: int = 0
    changes: int = 0


@dataclass(slots=True)
class GameBudget:
    """What a game's seats have spent, as its row stores it (``write_tat_ms`` is the
    host's TAT, ``player_budgets`` each player's ``[tat_ms, changes]``)."""

    host_tat_ms: int = 0
    players: dict[str, SeatSpend] = field(default_factory=dict)

    @classmethod
    def stored(cls, host_tat_ms: int, players: Mapping[str, list[int]] | None) -> GameBudget:
        return cls(host_tat_ms, {p: SeatSpend(*spent) for p, spent in (players or {}).items()})

    def player_data(self) -> dict[str, list[int]]:
        return {p: [spent.tat_ms, spent.changes] for p, spent in sorted(self.players.items())}

    def spend(
        self, limits: WriteLimits, game_id: str, version: int, player_id: str | None, now: int
    ) -> None:
        """Admit one change to be stored, by the host (``player_id`` None) or a player; or
        409 (the log, or the player's share of it, is full) or 429 (the seat's rate)."""
        check_log_room(limits, game_id, version)
        if player_id is not None:
            changes = self.players.get(player_id, SeatSpend()).changes
            if changes >= limits.player_events:
                raise SeatEventLimitReached(
                    f"Player {player_id} has made {changes} changes to game {game_id}, the "
                    "most one player may; the host's token can still change the game.",
                    player_id=player_id,
                )
        self._charge(limits, game_id, player_id, now, logged=1)

    def spend_rate(
        self, limits: WriteLimits, game_id: str, player_id: str | None, now: int
    ) -> None:
        """Admit a request that logs nothing but stores its answer (a keyed change that
        changes nothing) at the seat's rate, or 429; it takes no room in the log."""
        self._charge(limits, game_id, player_id, now, logged=0)

    def _charge(
        self, limits: WriteLimits, game_id: str, player_id: str | None, now: int, logged: int
    ) -> None:
        """The seat's rate (or 429), and ``logged`` more of a player's share of the log."""
        if player_id is None:
            self.host_tat_ms = limit_game_write(limits.host, game_id, self.host_tat_ms, now)
            return
        spent = self.players.get(player_id, SeatSpend())
        tat = limit_game_write(limits.player, game_id, spent.tat_ms, now, f" by {player_id}")
        self.players[player_id] = SeatSpend(tat, spent.changes + logged)
