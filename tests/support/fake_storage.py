"""The storage port (app/services/storage.py) in memory, for the use-case tests: dicts with
the database's semantics (versions and compare-and-set, unique idempotency keys, the
cascade of a deletion, announcements heard after the commit), and none of its costs.

A unit of work works on copies of the tables and puts them back when it commits, so a
rollback leaves nothing behind; units of work run one at a time, as SQLite's writers do
(``concurrent_writers`` is False: keys in flight are told by their lease, not a lock).
Rows are immutable values, replaced, never changed in place.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from app.domain.game import GameEvent, GameState
from app.services.storage import GONE, ChangeFeed, KeyTaken, Listener, LostRace
from app.services.stored import (
    Credentials,
    KeyRecord,
    LoggedEvent,
    Outcome,
    StoredDocument,
    StoredGame,
    StoredVersion,
)


@dataclass(frozen=True)
class GameRow:
    state: GameState
    credentials: Credentials
    document: str | None
    document_key: str | None
    updated_at: datetime
    write_tat_ms: int = 0
    player_budgets: Mapping[str, list[int]] | None = None


@dataclass
class Tables:
    games: dict[str, GameRow] = field(default_factory=dict)
    events: dict[str, tuple[LoggedEvent, ...]] = field(default_factory=dict)
    keys: dict[str, KeyRecord] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)

    def copy(self) -> Tables:
        return Tables(dict(self.games), dict(self.events), dict(self.keys), dict(self.limits))


def _append(t: Tables, game_id: str, seq: int, event: GameEvent, at: datetime) -> LoggedEvent:
    """Log ``event`` as ``seq`` of the game, its data as a JSON column gives it back."""
    assert game_id in t.games, "an event belongs to a stored game"
    log = t.events.get(game_id, ())
    assert all(e.seq != seq for e in log), "an event's (game, seq) is unique"
    logged = LoggedEvent(seq, event.type, at, json.loads(json.dumps(dict(event.data))))
    t.events[game_id] = tuple(sorted((*log, logged), key=lambda e: e.seq))
    return logged


def _delete(table: dict[str, Any], keys: list[str]) -> int:
    for key in keys:
        del table[key]
    return len(keys)


def _budgets(budgets: Mapping[str, list[int]] | None) -> dict[str, list[int]]:
    return {seat: list(spent) for seat, spent in (budgets or {}).items()}


class FakeChangeFeed:
    """The port's ``ChangeFeed`` for one process: it hears the commits of its storage."""

    def __init__(self) -> None:
        self.listener: Listener | None = None
        self.watched: frozenset[str] = frozenset()

    def start(self, listener: Listener) -> None:
        self.listener = listener

    def stop(self) -> None:
        self.listener = None

    def watch(self, game_ids: Iterable[str]) -> None:
        self.watched = frozenset(game_ids)

    def heard(self, game_id: str, seq: int, logged: LoggedEvent | None) -> None:
        if self.listener is not None and game_id in self.watched:
            self.listener(game_id, seq, logged)


Announced = list[tuple[FakeChangeFeed, str, int, LoggedEvent | None]]


def _feed(changes: ChangeFeed | None) -> FakeChangeFeed | None:
    if changes is not None and not isinstance(changes, FakeChangeFeed):
        raise TypeError(f"the fake storage announces through a FakeChangeFeed, not {changes!r}")
    return changes


class _OnTables:
    def __init__(self, tables: Tables) -> None:
        self.t = tables


class FakeGames:
    def __init__(self, tables: Tables, announced: Announced) -> None:
        self.t = tables
        self.announced = announced

    def insert(
        self,
        game: GameState,
        credentials: Credentials,
        document: str,
        document_key: str,
        at: datetime,
    ) -> None:
        assert game.id not in self.t.games, f"game {game.id} exists: a primary key clash"
        self.t.games[game.id] = GameRow(game, credentials, document, document_key, at)

    def state(self, game_id: str, *, for_update: bool = False) -> StoredGame | None:
        if (row := self.t.games.get(game_id)) is None:
            return None
        budgets = None if row.player_budgets is None else _budgets(row.player_budgets)
        return StoredGame(row.state, row.credentials, row.write_tat_ms, budgets)

    def document(self, game_id: str) -> StoredDocument | None:
        if (row := self.t.games.get(game_id)) is None:
            return None
        return StoredDocument(row.state.version, row.document, row.document_key, row.credentials)

    def version(self, game_id: str) -> StoredVersion | None:
        if (row := self.t.games.get(game_id)) is None:
            return None
        return StoredVersion(row.state.version, row.credentials)

    def recovery(self, game_id: str) -> StoredVersion | None:
        return self.version(game_id)  # its credentials hold every hash

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
        row = self.t.games.get(game.id)
        if row is None or row.state.version != read_version:
            raise LostRace(game.id)
        self.t.games[game.id] = replace(
            row,
            state=game,
            document=document,
            document_key=document_key,
            updated_at=at,
            write_tat_ms=write_tat_ms,
            player_budgets=_budgets(player_budgets),
        )
        logged = _append(self.t, game.id, game.version, event, at)
        if (feed := _feed(changes)) is not None:
            self.announced.append((feed, game.id, game.version, logged))

    def replace_credentials(self, game_id: str, credentials: Credentials) -> None:
        if (row := self.t.games.get(game_id)) is not None:
            self.t.games[game_id] = replace(row, credentials=credentials)

    def store_budget(
        self, game_id: str, write_tat_ms: int, player_budgets: Mapping[str, list[int]]
    ) -> None:
        if (row := self.t.games.get(game_id)) is not None:
            budgets = _budgets(player_budgets) if player_budgets else None
            self.t.games[game_id] = replace(row, write_tat_ms=write_tat_ms, player_budgets=budgets)

    def refresh_document(self, game_id: str, version: int, document: str, key: str) -> None:
        if (row := self.t.games.get(game_id)) is not None and row.state.version == version:
            self.t.games[game_id] = replace(row, document=document, document_key=key)

    def idle_since(self, before: datetime, limit: int, *, lock: bool = False) -> list[str]:
        idle = sorted(game_id for game_id, row in self.t.games.items() if row.updated_at < before)
        return idle[:limit]


class FakeEvents(_OnTables):
    def append(self, game_id: str, seq: int, event: GameEvent, at: datetime) -> None:
        _append(self.t, game_id, seq, event, at)

    def list_after(self, game_id: str, after: int, limit: int) -> list[LoggedEvent]:
        return [e for e in self.t.events.get(game_id, ()) if e.seq > after][:limit]

    def with_seqs(self, game_id: str, seqs: Sequence[int]) -> list[LoggedEvent]:
        wanted = set(seqs)
        return [e for e in self.t.events.get(game_id, ()) if e.seq in wanted]


class FakeKeys(_OnTables):
    def get(
        self, key_hash: str, *, for_update: bool = False, nowait: bool = False
    ) -> KeyRecord | None:
        return self.t.keys.get(key_hash)

    def insert(self, record: KeyRecord) -> None:
        if record.key_hash in self.t.keys:
            raise KeyTaken(record.key_hash)
        self.t.keys[record.key_hash] = record

    def _update(self, key_hash: str, **values: Any) -> None:
        if key_hash in self.t.keys:
            self.t.keys[key_hash] = replace(self.t.keys[key_hash], **values)

    def extend_lease(self, key_hash: str, locked_until: datetime) -> None:
        self._update(key_hash, locked_until=locked_until)

    def complete(self, key_hash: str, **answer: Any) -> None:
        self._update(key_hash, state="completed", **answer)

    def release(self, key_hash: str) -> None:
        record = self.t.keys.get(key_hash)
        if record is not None and record.state == "in_flight":
            del self.t.keys[key_hash]

    def drop_if_expired(self, key_hash: str, now: datetime) -> None:
        record = self.t.keys.get(key_hash)
        if record is not None and record.expires_at < now:
            del self.t.keys[key_hash]

    def purge_expired(self, now: datetime, limit: int) -> int:
        expired = sorted(h for h, record in self.t.keys.items() if record.expires_at < now)
        return _delete(self.t.keys, expired[:limit])


class FakeLimits(_OnTables):
    def admit(self, address: str, now_ms: int, interval_ms: int, tolerance_ms: int) -> bool:
        tat = self.t.limits.get(address)
        if tat is None:
            self.t.limits[address] = now_ms + interval_ms
            return True
        start = max(tat, now_ms)
        if start - now_ms > tolerance_ms:
            return False
        self.t.limits[address] = start + interval_ms
        return True

    def tat(self, address: str) -> int | None:
        return self.t.limits.get(address)

    def purge_expired(self, now_ms: int, limit: int) -> int:
        expired = sorted(address for address, tat in self.t.limits.items() if tat < now_ms)
        return _delete(self.t.limits, expired[:limit])


class FakeUnitOfWork:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.stores_an_answer = False
        self.announced: Announced = []
        self.games = FakeGames(tables, self.announced)
        self.events = FakeEvents(tables)
        self.keys = FakeKeys(tables)
        self.limits = FakeLimits(tables)

    def delete_games(self, game_ids: list[str], changes: ChangeFeed | None) -> int:
        t = self.tables
        gone = [game_id for game_id in game_ids if game_id in t.games]
        for game_id in gone:
            del t.games[game_id]
            t.events.pop(game_id, None)
        for key_hash, record in list(t.keys.items()):
            if record.game_id in game_ids:
                t.keys[key_hash] = replace(
                    record,
                    game_id=None,
                    state="completed",
                    outcome=Outcome.GAME_DELETED,
                    version=None,
                    body=None,
                )
        feed = _feed(changes)
        if feed is not None:
            self.announced.extend((feed, game_id, GONE, None) for game_id in game_ids)
        return len(gone)


class FakeStorage:
    """The port's ``Storage`` in memory (see the module docstring)."""

    concurrent_writers = False

    def __init__(self) -> None:
        self.tables = Tables()
        self._one_at_a_time = threading.RLock()

    @contextmanager
    def unit_of_work(
        self, *, write: bool, statement_by_statement: bool = False
    ) -> Iterator[FakeUnitOfWork]:
        with self._one_at_a_time:
            uow = FakeUnitOfWork(self.tables.copy())
            yield uow
            self.tables = uow.tables  # committed (a read commits what it wrote too)
        for feed, game_id, seq, logged in uow.announced:
            feed.heard(game_id, seq, logged)

    def ping(self) -> None:
        return None
