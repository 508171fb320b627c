"""How the JSON columns (a game's state, its players' token hashes, an event's data, a
stored answer's headers) are written and read: by orjson and by jiter's parser (pydantic's
own), instead of the standard library's ``json``, which cost a change of a game more than
its SQL did, or pydantic-core's serializer, which cost more than orjson (bench/RESULTS.md).

Every reader of these columns parses them here: SQLAlchemy's engine (its
``json_serializer`` and ``json_deserializer``), the SQLite reads on the event loop (which
get the column's text) and psycopg's async connections (which get its bytes).
"""

from __future__ import annotations

from typing import Any

import jiter
import orjson


def json_text(value: Any) -> str:
    """``value`` (JSON-ready data) as compact JSON text (a key that is not a string
    becomes one, as the standard library and pydantic-core would write it)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def json_value(text: str | bytes) -> Any:
    """The data of a JSON column's text or bytes."""
    return jiter.from_json(text.encode() if isinstance(text, str) else text)
