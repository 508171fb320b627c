"""Whether the service can answer: its database, and the errors that mean it is away."""

from __future__ import annotations

from app.persistence.db import Database, is_unavailable_error


class Health:
    def __init__(self, db: Database) -> None:
        self.db = db

    def check_database(self) -> None:
        """Raise unless the database answers."""
        self.db.ping()


def is_outage(exc: BaseException) -> bool:
    """True when ``exc`` means the database is unreachable, down or locked up (a 503, not
    a bug): rule errors, constraint violations and the like are answers, not outages."""
    return is_unavailable_error(exc)
