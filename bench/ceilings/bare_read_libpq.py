"""bare-read-libpq: ``bare-read`` (its code, unchanged) reading PostgreSQL through libpq's
own calls (``libpq_rows.py``) rather than psycopg's cursor. Not a goal's ceiling: a
reference beside the frozen ``bare-read``, to tell the driver's share of a read's ratio
from the rest. On SQLite there is no cheaper public path than ``sqlite3``'s: it is
``bare-read`` itself.
"""

from __future__ import annotations

import os

from bench.ceilings import bare_read
from bench.ceilings.database import SqliteRows

if not isinstance(bare_read.ROWS, SqliteRows):
    # Imported here: on SQLite this is bare-read, psycopg not loaded, its memory the same.
    from bench.ceilings.libpq_rows import LibpqRows

    url = os.environ["DATABASE_URL"]
    for prefix in ("postgresql+psycopg://", "postgres://"):
        if url.startswith(prefix):
            url = "postgresql://" + url.removeprefix(prefix)
    # bare_read's app reads its module's ROWS on each request.
    bare_read.ROWS = LibpqRows(url)

app = bare_read.app
