"""The storage port: what the use cases need from wherever games are stored, declared here
so that they depend on no database library. ``app/persistence`` implements it on
SQLAlchemy (SQLite, PostgreSQL); the service tests also run it on dicts
(``tests/support/fake_storage.py``).

A use case opens one unit of work (``Storage.unit_of_work``): its repositories read and
write in one transaction, committed when the block ends normally and rolled back when it
raises. The errors a use case must tell apart are declared here too, and the adapter
raises them instead of its driver's: a change that lost a race, an idempotency key that
exists or is locked by another attempt, and an outage of the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol, TypeVar

from app.domain.game import GameEvent, GameState
from app.services.stored import (
    Credentials,
    KeyRecord,
    LoggedEvent,
    Outcome,
    StoredDocument,
    StoredGame,
    StoredVersion,
)

# ---- errors -----------------------------------------------------------------------------


class LostRace(Exception):
    """Another writer stored a change to the game after this change read it."""


class KeyTaken(Exception):
    """An idempotency key with this hash is stored already (the insert stored nothing)."""


class KeyLocked(Exception):
    """Another attempt holds the idempotency key's row (a lock taken without waiting)."""


class WouldWait(Exception):
    """A unit of work opened where nothing may wait (the event loop, see
    ``Storage.unit_of_work``) found what it needs held by another writer, before its
    request stored anything: the request must run again where it may wait."""


class StorageUnavailable(Exception):
    """The store is unreachable, down, or one of its bounds ran out: a 503, not a bug. Its
    message is what the client is told."""


# ---- the change feed --------------------------------------------------------------------

#: The seq that says "game G is gone" (deleted): no game has a version 0.
GONE = 0

#: Hears "game G reached seq S", with the event itself when this process committed it (no
#: need to read it back), or seq :data:`GONE` when G was deleted; called from any thread.
Listener = Callable[[str, int, LoggedEvent | None], None]


class ChangeFeed(Protocol):
    """Hears the changes committed to games by every process; a unit of work announces its
    own when it is given the feed (``store_change``, ``delete_games``)."""

    def start(self, listener: Listener) -> None: ...

    def stop(self) -> None: ...

    def watch(self, game_ids: Iterable[str]) -> None:
        """The games someone listens to: the only ones whose versions are ever read."""
        ...


# ---- repositories -----------------------------------------------------------------------


class Games(Protocol):
    """The games' rows: state, read model, version, credentials and write budgets."""

    def insert(
        self,
        game: GameState,
        credentials: Credentials,
        document: str,
        document_key: str,
        at: datetime,
    ) -> None: ...

    def state(self, game_id: str, *, for_update: bool = False) -> StoredGame | None:
        """``for_update`` locks the row until the unit of work ends, where rows lock."""
        ...

    def document(self, game_id: str) -> StoredDocument | None: ...

    def version(self, game_id: str) -> StoredVersion | None: ...

    def recovery(self, game_id: str) -> StoredVersion | None:
        """The version and every hash, the recovery code's included (not the state)."""
        ...

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
        player_budgets: Mapping[str, list[int]] | None,
        changes: ChangeFeed | None,
    ) -> None:
        """Store what a change left (state, document, budgets and the event numbered by the
        new version) if the game is still at ``read_version``; else :class:`LostRace`,
        storing nothing. With ``changes``, the change is announced at its commit."""
        ...

    def replace_credentials(self, game_id: str, credentials: Credentials) -> None: ...

    def store_budget(
        self, game_id: str, write_tat_ms: int, player_budgets: Mapping[str, list[int]]
    ) -> None:
        """What the game's seats have spent, for a change that stores nothing else."""
        ...

    def refresh_document(self, game_id: str, version: int, document: str, key: str) -> None:
        """Store a document rendered again for an unchanged game (a no-op if it changed)."""
        ...

    def idle_since(self, before: datetime, limit: int, *, lock: bool = False) -> list[str]:
        """Ids of games last changed before ``before``; ``lock`` skips the games another
        unit of work holds, and locks the others until this one ends."""
        ...


class Events(Protocol):
    """The games' logs, numbered by ``seq`` within each game."""

    def append(self, game_id: str, seq: int, event: GameEvent, at: datetime) -> None: ...

    def list_after(self, game_id: str, after: int, limit: int) -> list[LoggedEvent]:
        """Events with ``seq > after``, oldest first, at most ``limit``."""
        ...

    def with_seqs(self, game_id: str, seqs: Sequence[int]) -> list[LoggedEvent]: ...


class IdempotencyKeys(Protocol):
    def get(
        self, key_hash: str, *, for_update: bool = False, nowait: bool = False
    ) -> KeyRecord | None:
        """The key; ``for_update`` locks it, and with ``nowait`` a key another attempt
        holds raises :class:`KeyLocked` at once."""
        ...

    def insert(self, record: KeyRecord) -> None:
        """Store a new key; :class:`KeyTaken` (the unit of work still usable) if it exists."""
        ...

    def extend_lease(self, key_hash: str, locked_until: datetime) -> None: ...

    def complete(
        self,
        key_hash: str,
        *,
        game_id: str | None,
        outcome: Outcome,
        version: int,
        body: bytes,
    ) -> None:
        """Store the outcome of the key's attempt, the game's version after it and its
        sealed answer."""
        ...

    def release(self, key_hash: str) -> None:
        """Delete the key while it is still in flight (a completed one stays)."""
        ...

    def drop_if_expired(self, key_hash: str, now: datetime) -> None:
        """Delete the key if it has expired, so that it may be claimed again (no other)."""
        ...

    def purge_expired(self, now: datetime, limit: int) -> int:
        """Delete at most ``limit`` expired keys (retention's batches); how many went."""
        ...


class CreationLimits(Protocol):
    """The game-creation limit's theoretical arrival time (TAT) per client address."""

    def admit(self, address: str, now_ms: int, interval_ms: int, tolerance_ms: int) -> bool:
        """Move the TAT one interval on if a request at ``now_ms`` fits in the tolerance;
        whether it did (the address's creations are serialized until the unit ends)."""
        ...

    def tat(self, address: str) -> int | None: ...

    def purge_expired(self, now_ms: int, limit: int) -> int: ...


# ---- the unit of work -------------------------------------------------------------------


class UnitOfWork(Protocol):
    #: True when the unit also stores an Idempotency-Key's answer (kept for a day): a
    #: change in it that changes nothing still spends its seat's rate (``transactions``).
    stores_an_answer: bool

    @property
    def games(self) -> Games: ...

    @property
    def events(self) -> Events: ...

    @property
    def keys(self) -> IdempotencyKeys: ...

    @property
    def limits(self) -> CreationLimits: ...

    def delete_games(self, game_ids: list[str], changes: ChangeFeed | None) -> int:
        """Delete the games with their events, and of their idempotency keys all but the
        hash, marked gone (a retry answers 404); with ``changes``, whoever follows them is
        told at the commit. How many went."""
        ...


class Storage(Protocol):
    @property
    def concurrent_writers(self) -> bool:
        """True where writers run side by side (row locks, locks taken without waiting,
        statement-by-statement units); False where one writer at a time holds the
        store's only write lock (SQLite)."""
        ...

    def unit_of_work(
        self, *, write: bool, statement_by_statement: bool = False
    ) -> AbstractContextManager[UnitOfWork]:
        """One transaction. ``statement_by_statement`` (concurrent writers only): each
        statement commits on its own, for work whose only write is one statement that
        checks what it read (``Games.store_change``)."""
        ...

    def ping(self) -> None:
        """Raise unless the store answers."""
        ...


R = TypeVar("R")


class WorkOnTheLoop(Protocol):
    """Where the store allows it, a request's storage work is run on the event loop and
    never blocks it: ``run`` raises ``WouldWait`` when it would have, before anything was
    stored, and the request must run again on a thread (on SQLite only after a few short
    pauses on the loop, each followed by another try). On a SQLite file every unit of
    work of the request is the loop's (``persistence/sqlite_loop_writes.py``); on
    PostgreSQL a change of the one game ``game_id`` names, read before and stored after
    the request's code (``persistence/pg_loop_changes.py``)."""

    async def run(self, work: Callable[[], R], game_id: str | None) -> R: ...


class AsyncGameReads(Protocol):
    """A game's read model, version and state, and whether an Idempotency-Key is held, read
    on the event loop, holding no thread (where the store allows it:
    ``app/persistence/async_reads.py``, ``sqlite_reads.py``)."""

    async def document(self, game_id: str) -> StoredDocument | None: ...

    async def version(self, game_id: str) -> StoredVersion | None: ...

    async def recovery(self, game_id: str) -> StoredVersion | None: ...

    async def state(self, game_id: str) -> StoredGame | None: ...

    async def key_stored(self, key_hash: str) -> bool:
        """Whether an Idempotency-Key is stored (an answer, or a claim in flight)."""
        ...

    async def close(self) -> None: ...
