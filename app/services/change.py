"""A change of one stored game in progress, as a use case sees it inside
``GameTransactions.changing``: the game, who asks, the version check and the one event it
logs; and what a read and a stored change hand back."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from app.domain.game import GameEvent, GameState, apply
from app.services.access import Principal
from app.services.client_limits import GameBudget, WriteLimits, check_log_room
from app.services.errors import VersionMismatch
from app.services.stored import Credentials, utcnow


@dataclass(frozen=True, slots=True)
class Reading:
    game: GameState
    who: Principal


@dataclass(frozen=True, slots=True)
class GameDocument:
    """A game as clients read it: its version and its rendered document."""

    version: int
    body: bytes


class Change:
    """A change in progress: the locked game, who asks, and the one event it logs (or
    none, when the change would leave the game as it is)."""

    def __init__(
        self, game: GameState, who: Principal, limits: WriteLimits, budget: GameBudget
    ) -> None:
        self.game = game
        self.who = who
        self.event: GameEvent | None = None
        self.applied = False
        self.document: GameDocument | None = None  # the read model, once stored
        self.at = utcnow()  # when it happens: the event's time, and the game's last change
        self.budget = budget  # what the game's seats have spent, moved on by apply()
        self.credentials: Credentials | None = None  # the game's, as the change read them
        self._limits = limits
        self._version_checked = False

    @property
    def version_checked(self) -> bool:
        return self._version_checked

    def check_version(self, expected: Collection[int] | None) -> None:
        """412 unless ``expected`` (the versions the client's If-Match names) holds the
        game's version; None (no If-Match, or ``*``) always passes.

        Called after the access checks, so that a stranger learns nothing from a 412."""
        self._version_checked = True
        if expected is None or self.game.version in expected:
            return
        named = (
            f"names version {', '.join(str(v) for v in sorted(expected))}"
            if expected
            else 'is not an ETag this service issued (e.g. "3")'
        )
        raise VersionMismatch(
            f"If-Match {named}, but the game is at version {self.game.version}: "
            "read it again and retry.",
            current_version=self.game.version,
        )

    def check_room(self) -> None:
        """409 when the game's log is full: for a change whose event costs work to make."""
        check_log_room(self._limits, self.game.id, self.game.version)

    def spend_for_its_answer(self) -> None:
        """A change that changes nothing but whose answer is stored (its Idempotency-Key's,
        kept for a day) spends its seat's rate, though nothing of the log: else a seat
        could store answers without end, each of a change that changed nothing."""
        self.budget.spend_rate(
            self._limits,
            self.game.id,
            None if self.who.is_host else self.who.player_id,
            int(self.at.timestamp() * 1000),
        )

    def apply(self, event: GameEvent | None) -> GameState:
        """Fold the change's event into the game (stored when the transaction ends); None
        when the game stays as it is: nothing is stored, logged or spent (but the seat's
        rate when its answer is stored: :meth:`spend_for_its_answer`)."""
        if not self._version_checked:
            raise RuntimeError("check_version() must come before apply(): a 412 is owed first")
        if self.applied:
            raise RuntimeError("a change logs exactly one event")
        self.applied = True
        if event is None:
            return self.game
        # Only a change that is about to be stored spends its seat's budget.
        self.budget.spend(
            self._limits,
            self.game.id,
            self.game.version,
            None if self.who.is_host else self.who.player_id,
            int(self.at.timestamp() * 1000),
        )
        self.event = event
        self.game = apply(
            self.game, event, game_id=self.game.id, seq=self.game.version + 1, at=self.at
        )
        return self.game
