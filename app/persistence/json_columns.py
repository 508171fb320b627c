"""How the JSON columns (a game's state, its players' token hashes, an event's data, a
stored answer's headers) are written and read: by pydantic-core's serializer and jiter's
parser, both already the service's (pydantic's own), instead of the standard library's
``json``, which cost a change of a game more than its SQL did (bench/RESULTS.md).

Every reader of these columns parses them here: SQLAlchemy's engine (its
``json_serializer`` and ``json_deserializer``), the SQLite reads on the event loop (which
get the column's text) and psycopg's async connections (which get its bytes).
"""

from __future__ import annotations

from typing import Any

import jiter
import pydantic_core


def json_text(value: Any) -> str:
    """``value`` (JSON-ready data) as compact JSON text."""
    return pydantic_core.to_json(value).decode()


def json_value(text: str | bytes) -> Any:
    """The data of a JSON column's text or bytes."""
    return jiter.from_json(text.encode() if isinstance(text, str) else text)
