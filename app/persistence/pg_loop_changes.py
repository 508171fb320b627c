"""PostgreSQL's changes on the event loop: the game read first, the request's code run on
the loop, its change stored after, each statement on the async connections of
``async_reads.py``.

A change on PostgreSQL reads its game without a lock and stores it by one statement that
stores nothing unless the game is still at the version it read (``GameTransactions``, in a
use case marked ``reruns_lost_races``): between the two, nothing needs the database. So
the admission (``app/api/platform/admission.py``) runs such a request in three steps, none
of which holds a request thread:

1. the game's row is read, as a report's GET reads it (``AsyncGameRows.state``);
2. the request's code runs on the loop inside :meth:`PostgresLoopChanges.run`: a unit of
   work it opens is a :class:`StagedUnitOfWork`, whose reads of that game answer from the
   row of step 1 and whose change is kept, not sent;
3. the kept change is sent, the same one statement a thread sends. When another writer
   stored first, it stores nothing and ``run`` raises ``LostRace``: the request runs
   again from step 1, as on a thread, and after a few lost races on a thread, whose last
   attempt locks the row (``app/services/races.py``).

Anything else a request asks of the storage (a row lock, another game, an
Idempotency-Key's row, a second change, a read after its change, a transaction of its own)
raises ``WouldWait`` at once. Nothing has been sent by then, so the admission runs the
request again on a request thread, from its start, as every change ran before. The answer
made in step 2 leaves only once step 3 has stored its change, and what was to follow the
commit (telling this process's followers) runs then. A statement of step 3 that runs out
of its bounds is cut as a read's is (``async_reads.py``): the request answers 503 and, as
with any change that got no answer, the client may read the game to see whether it landed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from datetime import datetime
from typing import TYPE_CHECKING, NoReturn, TypeVar

from app.domain.game import GameEvent, GameState
from app.persistence.driver_statements import ChangeStatements
from app.persistence.repositories import StoredChange
from app.services.storage import ChangeFeed, LostRace, WouldWait
from app.services.stored import Credentials, StoredGame

if TYPE_CHECKING:
    from app.persistence.async_reads import AsyncGameRows

R = TypeVar("R")


class _NotRead:
    """The row of a run that has not read it yet."""


_NOT_READ = _NotRead()


class StagedRun:
    """One attempt of a request on the loop: its game's row as step 1 read it (None: no
    such game; ``_NOT_READ`` before step 1) and the change it keeps for step 3."""

    __slots__ = ("change", "game_id", "running", "stored", "thread")

    def __init__(self, game_id: str, stored: StoredGame | _NotRead | None = _NOT_READ) -> None:
        self.game_id = game_id
        self.stored = stored
        self.change: StoredChange | None = None
        self.running = True
        self.thread = threading.get_ident()


class _RowNeeded(WouldWait):
    """The request asked for its game's row before step 1 read it: ``run`` reads it and
    runs the request again (a WouldWait, so that whatever lets a WouldWait through lets
    this one through too)."""


_RUN: ContextVar[StagedRun | None] = ContextVar("postgres_staged_run", default=None)


def _refuse(what: str) -> NoReturn:
    raise WouldWait(f"{what} is not served on the event loop")


class PostgresLoopChanges:
    """The storage port's ``WorkOnTheLoop`` on PostgreSQL (see the module's docstring)."""

    def __init__(self, rows: AsyncGameRows, statements: ChangeStatements) -> None:
        self._rows = rows
        self._statements = statements

    async def run(self, work: Callable[[], R], game_id: str | None) -> R:
        """What ``work`` answers, its change stored: on the loop, else ``WouldWait``
        (nothing stored), or ``LostRace`` when another writer stored first."""
        if game_id is None:
            _refuse("a request without its game")
        run = StagedRun(game_id)
        try:
            answer = self._attempt(run, work)
        except _RowNeeded:
            # Read only once the request asks for it: one that goes to a thread anyway
            # (a lock, a key) was sent there before any round trip.
            run = StagedRun(game_id, await self._rows.state(game_id))
            answer = self._attempt(run, work)
        change = run.change
        if change is None:  # nothing to store
            return answer
        statement = self._statements.store_statement(announce=change.announces)
        values = statement.parameters(change.values)
        assert isinstance(values, dict)  # PostgreSQL's statements bind by name
        if await self._rows.fetch_one(statement.sql, values) is None:
            raise LostRace(game_id)
        announce = change.announcement()
        if announce is not None:
            announce()
        return answer

    @staticmethod
    def _attempt(run: StagedRun, work: Callable[[], R]) -> R:
        token = _RUN.set(run)
        try:
            return work()
        finally:
            run.running = False
            _RUN.reset(token)

    @staticmethod
    def current() -> StagedRun | None:
        """The attempt on the loop whose unit of work is being opened, if any (a task or a
        callback made meanwhile copies the context, but runs later: not this attempt's)."""
        run = _RUN.get()
        if run is None or not run.running or run.thread != threading.get_ident():
            return None
        return run

    @staticmethod
    def unit_of_work(
        run: StagedRun, *, write: bool, statement_by_statement: bool
    ) -> StagedUnitOfWork:
        """A unit of work of ``run``: a change stored by one statement. A read of its own
        (a keyed change checks its token before its key's claim) is not one: the request
        goes to a thread before it sends anything."""
        if not write:
            _refuse("a read before the change")
        if not statement_by_statement:
            _refuse("a transaction that locks what it reads")
        return StagedUnitOfWork(run)


class StagedUnitOfWork:
    """The storage port's unit of work within a :class:`StagedRun`: its game only."""

    def __init__(self, run: StagedRun) -> None:
        self.games = StagedGames(run)
        self.stores_an_answer = False  # a keyed change runs on a thread, never here

    @property
    def events(self) -> NoReturn:
        _refuse("a game's log")

    @property
    def keys(self) -> NoReturn:
        _refuse("an Idempotency-Key")

    @property
    def limits(self) -> NoReturn:
        _refuse("a creation limit")

    def delete_games(self, game_ids: list[str], changes: ChangeFeed | None) -> NoReturn:
        _refuse("a deletion")


class StagedGames:
    """The storage port's ``Games`` within a :class:`StagedRun`: the game's row read in
    step 1, and its one change kept for step 3."""

    def __init__(self, run: StagedRun) -> None:
        self._run = run

    def state(self, game_id: str, *, for_update: bool = False) -> StoredGame | None:
        if for_update:
            _refuse("a row lock")
        stored = self._read(game_id).stored
        if isinstance(stored, _NotRead):
            raise _RowNeeded
        return stored

    def version(self, game_id: str) -> NoReturn:
        _refuse("a game's version alone")

    def recovery(self, game_id: str) -> NoReturn:
        _refuse("a game's recovery hash")

    def document(self, game_id: str) -> NoReturn:
        _refuse("a game's document")

    def store_change(
        self,
        game: GameState,
        document: str,
        document_key: str,
        event: GameEvent,
        at: datetime,
        *,
        read_version: int,
        write_tat_ms: int,
        player_budgets: Mapping[str, list[int]] | None = None,
        changes: ChangeFeed | None = None,
    ) -> None:
        run = self._read(game.id)
        run.change = StoredChange.of(
            game,
            document,
            document_key,
            event,
            at,
            read_version=read_version,
            write_tat_ms=write_tat_ms,
            player_budgets=player_budgets,
            changes=changes,
        )

    def insert(
        self,
        game: GameState,
        credentials: Credentials,
        document: str,
        document_key: str,
        at: datetime,
    ) -> NoReturn:
        _refuse("a new game")

    def replace_credentials(self, game_id: str, credentials: Credentials) -> NoReturn:
        _refuse("new credentials")

    def refresh_document(self, game_id: str, version: int, document: str, key: str) -> NoReturn:
        _refuse("a document rendered again")

    def store_budget(
        self, game_id: str, write_tat_ms: int, player_budgets: Mapping[str, list[int]]
    ) -> NoReturn:
        _refuse("a budget spent by a keyed change")

    def idle_since(self, before: datetime, limit: int, *, lock: bool = False) -> NoReturn:
        _refuse("a sweep of idle games")

    def _read(self, game_id: str) -> StagedRun:
        """The run, when ``game_id`` is its game and it keeps no change yet (a read after
        the change would see the game as it was before it)."""
        run = self._run
        if game_id != run.game_id:
            _refuse("another game")
        if run.change is not None:
            _refuse("a second statement after a change")
        return run
