"""The storage port (``app/services/storage.py``) on SQLAlchemy: a unit of work is one
``Database.transaction`` on one connection, its repositories those of ``repositories.py``,
``idempotency_keys.py`` and ``creation_limits.py``, and the database's outages the port's
``StorageUnavailable``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from types import TracebackType

from sqlalchemy import Connection

from app.persistence.changes import sql_feed
from app.persistence.creation_limits import CreationLimitRepository
from app.persistence.errors import is_unavailable_error, unavailable_detail
from app.persistence.idempotency_keys import IdempotencyKeys
from app.persistence.repositories import EventRepository, GameRepository
from app.services.storage import ChangeFeed, StorageUnavailable


class translated:  # named as what it does where it is entered: ``with translated():``
    """The database's outages (``errors.py``) raised as the port's ``StorageUnavailable``,
    with what the client is told; every other error as it is. A class rather than a
    ``@contextmanager`` generator: every read on the event loop enters one, and a plain
    ``__enter__``/``__exit__`` costs a fraction of a generator's machinery."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if (
            isinstance(exc, Exception)
            and not isinstance(exc, StorageUnavailable)
            and is_unavailable_error(exc)
        ):
            raise StorageUnavailable(unavailable_detail(exc)) from exc


class SqlUnitOfWork:
    """One transaction's repositories (``Database.unit_of_work`` opens it)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.stores_an_answer = False  # set by the Idempotency-Key's attempt
        # What is to happen once the transaction has committed, never if it rolls back.
        self.after_commit: list[Callable[[], None]] = []
        self.games = GameRepository(connection, after_commit=self.after_commit)

    # Made at their first use: most units of work (a change of a game, a read) use the
    # games' repository alone.
    @cached_property
    def events(self) -> EventRepository:
        return EventRepository(self.connection)

    @cached_property
    def keys(self) -> IdempotencyKeys:
        return IdempotencyKeys(self.connection)

    @cached_property
    def limits(self) -> CreationLimitRepository:
        return CreationLimitRepository(self.connection)

    def committed(self) -> None:
        """Run what was to follow the commit (``Database.unit_of_work`` calls it)."""
        for hook in self.after_commit:
            hook()

    def delete_games(self, game_ids: list[str], changes: ChangeFeed | None) -> int:
        feed = sql_feed(changes)
        if feed is None:
            return self.games.delete(game_ids)
        notify, announce = feed.deletion(game_ids)
        if announce is not None:
            self.after_commit.append(announce)
        return self.games.delete(game_ids, notify)
