"""The transactions every use case on a stored game runs in.

A read takes the game's row in one statement and checks the token. A change loads the
row, checks access (401/403/404) and then the version (412), folds the one event the use
case logs into the state, and stores the new state, its rendered document and the event
numbered by the new version, all at once and only if the game is still at the version it
read: the log, the state and the read model cannot disagree, and no change is lost. A use
case reads top to bottom::

    @reruns_lost_races  # on PostgreSQL, read unlocked and run again if another stored first
    def set_leaders(self, game_id, player_id, leaders, token, if_match):
        with self.transactions.changing(game_id, token) as change:
            change.game.player(player_id)                 # 404
            change.who.require_host("change leaders")     # 403
            change.check_version(if_match)                # 412
            change.apply(rules.set_leaders(change.game, player_id, leaders))
        return change.game
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from anyio import to_thread
from prometheus_client import Counter
from sqlalchemy.orm import Session

from app.domain.errors import NotFound
from app.domain.game import GameEvent, GameState, apply
from app.persistence.changes import ChangeFeed
from app.persistence.db import Database
from app.persistence.models import utcnow
from app.persistence.repositories import (
    Credentials,
    EventRepository,
    GameRepository,
    LoggedEvent,
    StoredDocument,
    StoredGame,
    StoredVersion,
)
from app.services.access import Principal, authenticate
from app.services.deletion import delete_games
from app.services.errors import VersionMismatch
from app.services.limits import GameBudget, WriteLimits, check_log_room
from app.services.ports import Presenter

if TYPE_CHECKING:  # made by Database.async_game_rows, on PostgreSQL only
    from app.persistence.async_reads import AsyncGameRows

P = ParamSpec("P")
R = TypeVar("R")

# Game ids are uuid4 hex: anything else cannot name a game, so it is a 404 without a query
# (and never reaches the database: PostgreSQL rejects a NUL byte in text outright).
_GAME_ID = re.compile(r"[0-9a-f]{32}")


def _no_game(game_id: str) -> NotFound:
    return NotFound(f"No game {game_id!r}.")


def _is_game_id(game_id: str) -> bool:
    return _GAME_ID.fullmatch(game_id) is not None


def _stored_version(session: Session, game_id: str) -> StoredVersion | None:
    return GameRepository(session).version(game_id) if _is_game_id(game_id) else None


def _checked_version(stored: StoredVersion | None, game_id: str, token: str | None) -> int:
    """The version of the game ``token`` may read (404 and 401 raised here)."""
    if stored is None:
        raise _no_game(game_id)
    authenticate(stored.credentials, token)
    return stored.version


#: Tries of a use case marked ``reruns_lost_races``; the last one locks the game's row.
RACE_ATTEMPTS = 4
# Set by reruns_lost_races for the attempts that may read without a lock.
_unlocked_attempt: ContextVar[bool] = ContextVar("unlocked_attempt", default=False)


LOST_RACES = Counter(
    "game_change_reruns_total",
    "Changes run again because another writer stored a change to their game first "
    "(PostgreSQL; the fourth attempt locks the game).",
)


class LostRace(Exception):
    """Another writer stored a change to the game after this change read it."""


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

    def apply(self, event: GameEvent | None) -> GameState:
        """Fold the change's event into the game (stored when the transaction ends); None
        when the game stays as it is: nothing is stored, logged or spent."""
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


class GameTransactions:
    """Reads and changes of one stored game, for the use cases (``games.py``, ``reports.py``)."""

    def __init__(
        self,
        db: Database,
        presenter: Presenter,
        *,
        limits: WriteLimits,
        changes: ChangeFeed | None = None,
        rows: AsyncGameRows | None = None,
    ) -> None:
        self.db = db
        # Reads on the event loop, where the database has them (PostgreSQL): async_reads.py.
        self.rows = rows
        self.presenter = presenter
        self.limits = limits
        # Announces each change at its commit to whoever follows the game (live.py).
        self.changes = changes

    # ---- reads --------------------------------------------------------------------------

    @contextmanager
    def reading(self, game_id: str, token: str | None) -> Iterator[Reading]:
        """The game's state and who asks, in one statement."""
        with self.db.transaction(write=False) as session:
            stored = self._stored(GameRepository(session), game_id, for_update=False)
        yield Reading(stored.state, authenticate(stored.credentials, token))

    async def document(self, game_id: str, token: str | None) -> GameDocument:
        """The read model: one statement, no state parsed, and no thread held where the
        database allows it (``rows``); a document rendered by another renderer (an older
        release, another tile catalogue) is rendered again once."""
        stored = None
        if _is_game_id(game_id):
            stored = await (
                self.rows.document(game_id)
                if self.rows is not None
                else to_thread.run_sync(self._read_document, game_id)
            )
        document = self._current_document(stored, game_id, token)
        if document is None:
            return await to_thread.run_sync(self._render_again, game_id, token)
        return document

    async def version(self, game_id: str, token: str | None) -> int:
        """The game's version, for a conditional read: one statement, no document."""
        return _checked_version(await self._version_row(game_id), game_id, token)

    async def seat_version(self, game_id: str, token: str | None) -> tuple[int, str]:
        """The game's version and the seat ``token`` holds there, in one statement."""
        stored = await self._version_row(game_id)
        if stored is None:
            raise _no_game(game_id)
        return stored.version, authenticate(stored.credentials, token).seat

    async def _version_row(self, game_id: str) -> StoredVersion | None:
        if not _is_game_id(game_id):
            return None
        return await (
            self.rows.version(game_id)
            if self.rows is not None
            else to_thread.run_sync(self._read_version, game_id)
        )

    def _read_document(self, game_id: str) -> StoredDocument | None:
        with self.db.transaction(write=False) as session:
            return GameRepository(session).document(game_id)

    def _read_version(self, game_id: str) -> StoredVersion | None:
        with self.db.transaction(write=False) as session:
            return GameRepository(session).version(game_id)

    def _current_document(
        self, stored: StoredDocument | None, game_id: str, token: str | None
    ) -> GameDocument | None:
        """The stored document when ``token`` may read it and the current renderer made
        it; None when it must be rendered again (404 and 401 raised here)."""
        if stored is None:
            raise _no_game(game_id)
        authenticate(stored.credentials, token)
        if stored.document is not None and stored.key == self.presenter.key:
            return GameDocument(stored.version, stored.document.encode())
        return None

    def events(
        self, game_id: str, token: str | None, after: int, limit: int
    ) -> tuple[int, list[LoggedEvent]]:
        """The game's version and its events after ``after`` (at most ``limit``)."""
        with self.db.transaction(write=False) as session:
            version = _checked_version(_stored_version(session, game_id), game_id, token)
            return version, EventRepository(session).list_after(game_id, after, limit)

    def _render_again(self, game_id: str, token: str | None) -> GameDocument:
        with self.db.transaction(write=True) as session:
            repository = GameRepository(session)
            stored = self._stored(repository, game_id, for_update=False)
            authenticate(stored.credentials, token)
            document = self.presenter.game(stored.state)
            repository.refresh_document(game_id, stored.state.version, document, self.presenter.key)
        return GameDocument(stored.state.version, document.encode())

    # ---- changes ------------------------------------------------------------------------

    @contextmanager
    def changing(
        self,
        game_id: str,
        token: str | None,
        *,
        session: Session | None = None,
        identify: Callable[[Credentials], Principal] | None = None,
    ) -> Iterator[Change]:
        """The game for a change, in ``session`` or a write transaction of its own.

        Stored only if the game is still at the version the change read. In a use case
        marked :func:`reruns_lost_races` (and on PostgreSQL) the game is read without a
        lock and each statement commits on its own: two round trips in all, and another
        writer storing first costs a rerun. Otherwise (SQLite's write transactions hold
        the database's lock already) the game's row is locked until the transaction ends.
        ``identify`` tells who asks from the game's credentials instead of ``token``.
        """
        if session is None:
            unlocked = _unlocked_attempt.get() and self.db.dialect_name == "postgresql"
            with (
                self.db.transaction(write=True, statement_by_statement=unlocked) as own,
                self._changing(
                    game_id, token, own, locked=not unlocked, identify=identify
                ) as change,
            ):
                yield change
            return
        with self._changing(game_id, token, session, locked=True, identify=identify) as change:
            yield change

    @contextmanager
    def _changing(
        self,
        game_id: str,
        token: str | None,
        session: Session,
        *,
        locked: bool,
        identify: Callable[[Credentials], Principal] | None = None,
    ) -> Iterator[Change]:
        repository = GameRepository(session)
        stored = self._stored(repository, game_id, for_update=locked)
        change = Change(
            stored.state,
            identify(stored.credentials)
            if identify is not None
            else authenticate(stored.credentials, token),
            self.limits,
            GameBudget.stored(stored.write_tat_ms, stored.player_budgets),
        )
        change.credentials = stored.credentials
        yield change
        if not change.applied:
            raise RuntimeError("a change must apply() the event it logs, or None")
        document = self.presenter.game(change.game)
        if change.event is None:  # nothing changes: nothing to store
            change.document = GameDocument(change.game.version, document.encode())
            return
        version = change.game.version
        stored_first = repository.store_change(
            change.game,
            document,
            self.presenter.key,
            change.event,
            change.at,
            read_version=stored.state.version,
            write_tat_ms=change.budget.host_tat_ms,
            player_budgets=change.budget.player_data(),
            notify=self.changes.notification(game_id, version) if self.changes else None,
        )
        if not stored_first:
            if locked:
                raise RuntimeError(f"game {game_id} changed while its row was locked")
            raise LostRace(game_id)
        change.document = GameDocument(version, document.encode())
        if self.changes is not None:
            logged = LoggedEvent(version, change.event.type, change.at, dict(change.event.data))
            self.changes.record(session, game_id, logged)

    @contextmanager
    def deleting(self, game_id: str, token: str | None) -> Iterator[Change]:
        """The game for its deletion: locked, with the checks of a change (404, then the
        caller's 401/403 and 412); it goes when the block ends, with everything it owns,
        in the same transaction (``deletion.py``). It logs no event: there is no log left."""
        with self.db.transaction(write=True) as session:
            stored = self._stored(GameRepository(session), game_id, for_update=True)
            change = Change(
                stored.state,
                authenticate(stored.credentials, token),
                self.limits,
                GameBudget.stored(stored.write_tat_ms, stored.player_budgets),
            )
            yield change
            if not change._version_checked:
                raise RuntimeError("check_version() must come before a deletion")
            delete_games(session, [game_id], self.changes)

    def create(
        self, session: Session, game_id: str, event: GameEvent, credentials: Credentials
    ) -> GameState:
        """Store a new game from its first event."""
        now = utcnow()
        game = apply(None, event, game_id=game_id, seq=1, at=now)
        GameRepository(session).insert(
            game, credentials, self.presenter.game(game), self.presenter.key, now
        )
        EventRepository(session).append(game_id, game.version, event, now)
        return game

    @staticmethod
    def _stored(repository: GameRepository, game_id: str, *, for_update: bool) -> StoredGame:
        stored = repository.state(game_id, for_update=for_update) if _is_game_id(game_id) else None
        if stored is None:
            raise _no_game(game_id)
        return stored
