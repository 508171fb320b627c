"""Changes committed to games, heard by every process of the service.

A notification says only "game G reached seq S": whoever hears it reads the events from the
log, so a notification lost, late or heard twice loses nothing and duplicates nothing. Seq 0
says "game G is gone" (deleted): no game has a version 0.

- In the process that commits: ``ChangeFeed.record`` gives the unit of work what tells the
  feed's listener, which it runs once it has committed: the listener hears it at once.
- Across processes on PostgreSQL: ``pg_notify`` in the change's own statement (delivered
  at commit, never for a change rolled back), heard by one ``LISTEN`` connection per
  process, on a thread of its own.
- Across processes on SQLite, which has no notifications: one thread per process polls
  ``PRAGMA data_version`` (it moves when any other connection commits) every
  ``poll_seconds`` and, when it moved, reads the versions of the watched games.

After its connection is lost and made again, the listener reports the version of every
watched game: whatever was committed meanwhile is heard then.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from sqlalchemy import select

from app.persistence.connections import libpq_conninfo
from app.persistence.tables import GAMES
from app.services.storage import GONE, Listener
from app.services.storage import ChangeFeed as PortChangeFeed
from app.services.stored import LoggedEvent

if TYPE_CHECKING:
    from app.persistence.db import Database

CHANNEL = "vr_game_changes"
_RECONNECT_SECONDS = 1.0
_LISTEN_TIMEOUT_SECONDS = 0.5  # how soon the PostgreSQL listener notices it must stop

logger = logging.getLogger("app.live")

__all__ = ["GONE", "ChangeFeed", "Listener", "Notification", "sql_feed"]


@dataclass(frozen=True, slots=True)
class Notification:
    """A ``pg_notify(channel, payload)`` to send when a change commits (PostgreSQL)."""

    channel: str
    payload: str


class ChangeFeed:
    """Announces committed changes and hears those of every process (one per process):
    the storage port's ``ChangeFeed`` on this database."""

    def __init__(self, db: Database, *, poll_seconds: float) -> None:
        self.db = db
        self.poll_seconds = poll_seconds
        self._listener: Listener | None = None
        self._watched: frozenset[str] = frozenset()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- announcing (in the writer's transaction) ----------------------------------------

    def notification(self, game_id: str, seq: int) -> Notification | None:
        """What the change's own statement sends to the other processes at its commit
        (``GameRepository.store_change``): a ``pg_notify`` on PostgreSQL, nothing on
        SQLite (whose processes poll)."""
        if self.db.dialect_name != "postgresql":
            return None
        return Notification(CHANNEL, f"{game_id} {seq}")

    def record(self, game_id: str, logged: LoggedEvent) -> Callable[[], None] | None:
        """What tells this process's listener that ``game_id`` reaches ``logged.seq``, to
        run once the change has committed (the other processes hear ``notification``)."""
        if self._listener is None or game_id not in self._watched:
            # Nobody here follows the game: nothing to run. A follower that starts
            # meanwhile reads the log after subscribing, and hears this change from the
            # LISTEN connection or the watcher if its commit comes later still.
            return None
        return partial(self._announce, [(game_id, logged.seq, logged)])

    def deletion(
        self, game_ids: Iterable[str]
    ) -> tuple[list[Notification], Callable[[], None] | None]:
        """What the deletion's transaction sends to the other processes (PostgreSQL; the
        SQLite watcher sees a watched game vanish), and what tells this process's
        listener that the games are gone, to run once it has committed."""
        game_ids = list(game_ids)
        watched = [game_id for game_id in game_ids if game_id in self._watched]
        announce = None
        if self._listener is not None and watched:
            announce = partial(self._announce, [(game_id, GONE, None) for game_id in watched])
        if self.db.dialect_name != "postgresql":
            return [], announce
        return [Notification(CHANNEL, f"{game_id} {GONE}") for game_id in game_ids], announce

    def _announce(self, committed: list[tuple[str, int, LoggedEvent | None]]) -> None:
        listener = self._listener
        for game_id, seq, logged in committed:
            if listener is not None:
                listener(game_id, seq, logged)

    # ---- hearing (one thread per process) ---------------------------------------------

    def watch(self, game_ids: Iterable[str]) -> None:
        """The games someone listens to: the only ones whose versions are ever read."""
        self._watched = frozenset(game_ids)

    def start(self, listener: Listener) -> None:
        """Hear every committed change from now on, of this process and of the others."""
        if self._thread is not None:
            return
        self._listener = listener
        self._stop.clear()
        target = self._listen if self.db.dialect_name == "postgresql" else self._poll
        self._thread = threading.Thread(target=target, name="change-feed", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=5)
        self._listener = None

    def _report_watched(self) -> None:
        """Tell the listener the current version of every watched game (:data:`GONE` for
        one that no longer exists)."""
        watched, listener = self._watched, self._listener
        if not watched or listener is None:
            return
        with self.db.transaction(write=False) as connection:
            rows = connection.execute(
                select(GAMES.c.id, GAMES.c.version).where(GAMES.c.id.in_(sorted(watched)))
            ).all()
        versions = dict.fromkeys(watched, GONE) | {game_id: version for game_id, version in rows}
        for game_id, version in versions.items():
            listener(game_id, version, None)

    def _listen(self) -> None:
        # Here, not at the top: a process on SQLite never loads psycopg (about 9 MiB).
        import psycopg

        conninfo = libpq_conninfo(self.db.url)
        while not self._stop.is_set():
            try:
                with psycopg.connect(conninfo, autocommit=True, connect_timeout=3) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._report_watched()  # whatever was committed while nobody listened
                    while not self._stop.is_set():
                        for notice in conn.notifies(timeout=_LISTEN_TIMEOUT_SECONDS):
                            self._heard(notice.payload)
            except Exception as exc:  # the database is down or restarting: listen again
                logger.warning("change listener lost its connection (%s); retrying", exc)
                self._stop.wait(_RECONNECT_SECONDS)

    def _heard(self, payload: str) -> None:
        game_id, _, seq = payload.partition(" ")
        listener = self._listener
        if listener is not None and seq.isdigit():
            listener(game_id, int(seq), None)

    def _poll(self) -> None:
        last: int | None = None
        while not self._stop.is_set():
            try:
                raw = self.db.engine.raw_connection()
                try:
                    # The pool's SQLite connections are in autocommit mode: no transaction
                    # is held open between polls, so the version always moves.
                    cursor = raw.cursor()
                    while not self._stop.wait(self.poll_seconds):
                        cursor.execute("PRAGMA data_version")
                        (version,) = cursor.fetchone() or (None,)
                        if version != last:
                            last = version
                            self._report_watched()
                finally:
                    raw.close()
            except Exception as exc:
                logger.warning("change watcher failed (%s); retrying", exc)
                last = None
                self._stop.wait(_RECONNECT_SECONDS)


def sql_feed(changes: PortChangeFeed | None) -> ChangeFeed | None:
    """The feed a unit of work on this database was given to announce its commits."""
    if changes is not None and not isinstance(changes, ChangeFeed):
        raise TypeError(f"a SQL unit of work announces through a ChangeFeed, not {changes!r}")
    return changes
