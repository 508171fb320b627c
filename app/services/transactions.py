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
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from anyio import to_thread

from app.domain.errors import NotFound
from app.domain.game import GameEvent, GameState, apply
from app.services.access import Principal, authenticate, recover
from app.services.change import Change, GameDocument, Reading
from app.services.client_limits import GameBudget, WriteLimits
from app.services.ports import Presenter
from app.services.races import LOST_RACES as LOST_RACES
from app.services.races import RACE_ATTEMPTS as RACE_ATTEMPTS
from app.services.races import reruns_lost_races as reruns_lost_races
from app.services.races import unlocked_attempt
from app.services.storage import (
    AsyncGameReads,
    ChangeFeed,
    Games,
    LostRace,
    Storage,
    UnitOfWork,
)
from app.services.stored import (
    Credentials,
    LoggedEvent,
    StoredDocument,
    StoredGame,
    StoredVersion,
    utcnow,
)

__all__ = ["Change", "GameDocument", "GameTransactions", "Reading", "reruns_lost_races"]

# Game ids are uuid4 hex: anything else cannot name a game, so it is a 404 without a query
# (and never reaches the database: PostgreSQL rejects a NUL byte in text outright).
_GAME_ID = re.compile(r"[0-9a-f]{32}")
_Row = TypeVar("_Row")


def _no_game(game_id: str) -> NotFound:
    return NotFound(f"No game {game_id!r}.")


def _is_game_id(game_id: str) -> bool:
    return _GAME_ID.fullmatch(game_id) is not None


def _checked(
    stored: StoredVersion | None, game_id: str, token: str | None
) -> tuple[StoredVersion, Principal]:
    """The game's version row and who holds ``token`` there (404 and 401 raised here)."""
    if stored is None:
        raise _no_game(game_id)
    return stored, authenticate(stored.credentials, token)


class GameTransactions:
    """Reads and changes of one stored game, for the use cases (``games.py``, ``reports.py``)."""

    def __init__(
        self,
        storage: Storage,
        presenter: Presenter,
        *,
        limits: WriteLimits,
        changes: ChangeFeed | None = None,
        rows: AsyncGameReads | None = None,
    ) -> None:
        self.storage = storage
        # Reads on the event loop, where the storage has them (async_reads.py, sqlite_reads.py).
        self.rows = rows
        self.presenter = presenter
        self.limits = limits
        # Announces each change at its commit to whoever follows the game (live.py).
        self.changes = changes

    # ---- reads --------------------------------------------------------------------------

    @contextmanager
    def reading(self, game_id: str, token: str | None) -> Iterator[Reading]:
        """The game's state and who asks, in one statement."""
        with self.storage.unit_of_work(write=False) as uow:
            stored = self._stored(uow, game_id, for_update=False)
        yield Reading(stored.state, authenticate(stored.credentials, token))

    async def read(self, game_id: str, token: str | None) -> Reading:
        """What ``reading`` yields, in one statement, and with no thread held where the
        database allows it (``rows``): a report's read."""
        stored = await self._row(
            game_id, lambda rows: rows.state(game_id), lambda games: games.state(game_id)
        )
        if stored is None:
            raise _no_game(game_id)
        return Reading(stored.state, authenticate(stored.credentials, token))

    def require_host(self, game_id: str, token: str | None, action: str) -> None:
        """404, 401, then 403 unless ``token`` is the host's: the check of a change that
        comes before the replay of its Idempotency-Key, which must not skip it. It reads
        the game's version and token hashes, not its state (which it does not need)."""
        stored = self._read(lambda games: games.version(game_id)) if _is_game_id(game_id) else None
        _checked(stored, game_id, token)[1].require_host(action)

    async def check_recovery(self, game_id: str, recovery_code: str) -> None:
        """404, then 401 unless ``recovery_code`` is the game's: what a recovery answers a
        stranger, read in one statement with no thread held where the database allows it,
        and not the game's state (a stranger's guesses parse nothing of it)."""
        stored = await self._row(
            game_id, lambda rows: rows.recovery(game_id), lambda games: games.recovery(game_id)
        )
        if stored is None:
            raise _no_game(game_id)
        recover(stored.credentials, recovery_code)

    async def document(self, game_id: str, token: str | None) -> GameDocument:
        """The read model: one statement, no state parsed, and no thread held where the
        database allows it (``rows``); a document rendered by another renderer (an older
        release, another tile catalogue) is rendered again once."""
        stored = await self._row(
            game_id, lambda rows: rows.document(game_id), lambda games: games.document(game_id)
        )
        document = self._current_document(stored, game_id, token)
        if document is None:
            return await to_thread.run_sync(self._render_again, game_id, token)
        return document

    async def version(self, game_id: str, token: str | None) -> int:
        """The game's version, for a conditional read: one statement, no document."""
        return _checked(await self._version_row(game_id), game_id, token)[0].version

    async def seat_version(self, game_id: str, token: str | None) -> tuple[int, str]:
        """The game's version and the seat ``token`` holds there, in one statement."""
        stored, who = _checked(await self._version_row(game_id), game_id, token)
        return stored.version, who.seat

    async def _version_row(self, game_id: str) -> StoredVersion | None:
        return await self._row(
            game_id, lambda rows: rows.version(game_id), lambda games: games.version(game_id)
        )

    async def _row(
        self,
        game_id: str,
        on_the_loop: Callable[[AsyncGameReads], Awaitable[_Row | None]],
        in_a_thread: Callable[[Games], _Row | None],
    ) -> _Row | None:
        """A read of the game's row (None when there is no such game): on the event loop
        where the database allows it (``rows``), else in a unit of work on a thread."""
        if not _is_game_id(game_id):
            return None
        if self.rows is not None:
            return await on_the_loop(self.rows)
        return await to_thread.run_sync(self._read, in_a_thread)

    def _read(self, read: Callable[[Games], _Row | None]) -> _Row | None:
        with self.storage.unit_of_work(write=False) as uow:
            return read(uow.games)

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
        with self.storage.unit_of_work(write=False) as uow:
            stored = uow.games.version(game_id) if _is_game_id(game_id) else None
            version = _checked(stored, game_id, token)[0].version
            return version, uow.events.list_after(game_id, after, limit)

    def _render_again(self, game_id: str, token: str | None) -> GameDocument:
        with self.storage.unit_of_work(write=True) as uow:
            stored = self._stored(uow, game_id, for_update=False)
            authenticate(stored.credentials, token)
            document = self.presenter.game(stored.state)
            uow.games.refresh_document(game_id, stored.state.version, document, self.presenter.key)
        return GameDocument(stored.state.version, document.encode())

    # ---- changes ------------------------------------------------------------------------

    @contextmanager
    def changing(
        self,
        game_id: str,
        token: str | None,
        *,
        uow: UnitOfWork | None = None,
        identify: Callable[[Credentials], Principal] | None = None,
    ) -> Iterator[Change]:
        """The game for a change, in ``uow`` or a write unit of work of its own.

        Stored only if the game is still at the version the change read. In a use case
        marked :func:`reruns_lost_races` (and on PostgreSQL) the game is read without a
        lock and each statement commits on its own: two round trips in all, and another
        writer storing first costs a rerun. Otherwise (SQLite's write transactions hold
        the database's lock already) the game's row is locked until the transaction ends.
        ``identify`` tells who asks from the game's credentials instead of ``token``.
        """
        if uow is None:
            unlocked = unlocked_attempt() and self.storage.concurrent_writers
            with (
                self.storage.unit_of_work(write=True, statement_by_statement=unlocked) as own,
                self._changing(
                    game_id, token, own, locked=not unlocked, identify=identify
                ) as change,
            ):
                yield change
            return
        with self._changing(game_id, token, uow, locked=True, identify=identify) as change:
            yield change

    @contextmanager
    def _changing(
        self,
        game_id: str,
        token: str | None,
        uow: UnitOfWork,
        *,
        locked: bool,
        identify: Callable[[Credentials], Principal] | None = None,
    ) -> Iterator[Change]:
        stored = self._stored(uow, game_id, for_update=locked)
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
        if change.event is None:  # nothing changes: nothing to store, but its answer
            if uow.stores_an_answer:
                change.spend_for_its_answer()
                uow.games.store_budget(
                    game_id, change.budget.host_tat_ms, change.budget.player_data()
                )
            change.document = GameDocument(change.game.version, document.encode())
            return
        try:
            uow.games.store_change(
                change.game,
                document,
                self.presenter.key,
                change.event,
                change.at,
                read_version=stored.state.version,
                write_tat_ms=change.budget.host_tat_ms,
                player_budgets=change.budget.player_data(),
                changes=self.changes,
            )
        except LostRace:
            if locked:
                raise RuntimeError(f"game {game_id} changed while its row was locked") from None
            raise
        change.document = GameDocument(change.game.version, document.encode())

    @contextmanager
    def deleting(self, game_id: str, token: str | None) -> Iterator[Change]:
        """The game for its deletion: locked, with the checks of a change (404, then the
        caller's 401/403 and 412); it goes when the block ends, with everything it owns,
        in the same transaction (``deletion.py``). It logs no event: there is no log left."""
        with self.storage.unit_of_work(write=True) as uow:
            stored = self._stored(uow, game_id, for_update=True)
            change = Change(
                stored.state,
                authenticate(stored.credentials, token),
                self.limits,
                GameBudget.stored(stored.write_tat_ms, stored.player_budgets),
            )
            yield change
            if not change.version_checked:
                raise RuntimeError("check_version() must come before a deletion")
            uow.delete_games([game_id], self.changes)

    def create(
        self, uow: UnitOfWork, game_id: str, event: GameEvent, credentials: Credentials
    ) -> GameState:
        """Store a new game from its first event."""
        now = utcnow()
        game = apply(None, event, game_id=game_id, seq=1, at=now)
        uow.games.insert(game, credentials, self.presenter.game(game), self.presenter.key, now)
        uow.events.append(game_id, game.version, event, now)
        return game

    @staticmethod
    def _stored(uow: UnitOfWork, game_id: str, *, for_update: bool) -> StoredGame:
        stored = uow.games.state(game_id, for_update=for_update) if _is_game_id(game_id) else None
        if stored is None:
            raise _no_game(game_id)
        return stored
