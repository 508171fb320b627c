"""The storage port (``app/services/storage.py``) on SQLAlchemy: a unit of work is one
``Database.transaction``, its repositories those of ``repositories.py``,
``idempotency_keys.py`` and ``creation_limits.py``, and the database's outages the port's
``StorageUnavailable``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from app.persistence.changes import sql_feed
from app.persistence.creation_limits import CreationLimitRepository
from app.persistence.errors import is_unavailable_error, unavailable_detail
from app.persistence.idempotency_keys import IdempotencyKeys
from app.persistence.repositories import EventRepository, GameRepository
from app.services.storage import ChangeFeed, StorageUnavailable


@contextmanager
def translated() -> Iterator[None]:
    """The database's outages (``errors.py``) raised as the port's ``StorageUnavailable``,
    with what the client is told; every other error as it is."""
    try:
        yield
    except StorageUnavailable:
        raise
    except Exception as exc:
        if is_unavailable_error(exc):
            raise StorageUnavailable(unavailable_detail(exc)) from exc
        raise


class SqlUnitOfWork:
    """One transaction's repositories (``Database.unit_of_work`` opens it)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.games = GameRepository(session)
        self.events = EventRepository(session)
        self.keys = IdempotencyKeys(session)
        self.limits = CreationLimitRepository(session)

    def delete_games(self, game_ids: list[str], changes: ChangeFeed | None) -> int:
        feed = sql_feed(changes)
        notify = feed.deletion(self.session, game_ids) if feed is not None else []
        return self.games.delete(game_ids, notify)
