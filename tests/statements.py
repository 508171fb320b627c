"""Counting the SQL statements an engine sends, for the tests that pin them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.engine import Connection


@contextmanager
def count_statements(engine: Engine) -> Iterator[list[str]]:
    """Record every SQL statement the engine sends (an executemany counts once)."""
    statements: list[str] = []

    def record(
        conn: Connection,
        cursor: Any,
        statement: str,
        parameters: Any,
        context: Any,
        executemany: bool,
    ) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)
