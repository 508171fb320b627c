"""bare-read-libpq: ``bare-read`` (its code, unchanged) reading PostgreSQL through libpq's
own calls (``libpq_rows.py``) rather than psycopg's cursor. Not a goal's ceiling: a
reference beside the frozen ``bare-read``, to tell the driver's share of a read's ratio
from the rest. On SQLite there is no cheaper public path than ``sqlite3``'s: it is
``bare-read`` itself.
"""

from __future__ import annotations

from bench.ceilings import bare_read
from bench.ceilings.database import PostgresRows

if isinstance(bare_read.ROWS, PostgresRows):
    # Imported here: on SQLite this is bare-read, psycopg not loaded, its memory the same.
    from bench.ceilings.libpq_rows import LibpqRows

    # The same database, its URL as database.py's game_rows already made it a conninfo.
    # bare_read's app reads its module's ROWS on each request.
    bare_read.ROWS = LibpqRows(bare_read.ROWS._conninfo)

app = bare_read.app
