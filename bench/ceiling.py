"""The write ceiling: the cheapest possible write transaction, served like the service.

A bare ASGI app (no framework) whose ``PUT /rows/{n}`` runs one
``UPDATE bench_rows SET n = n + 1 WHERE id = :id`` in ``Database.transaction(write=True)``
(the service's own unit of work: same engine options, pool, SQLite pragmas and
``BEGIN IMMEDIATE``) in the threadpool, exactly as the service runs its sync routes.
Served by uvicorn with the options ``python -m app`` uses. Nothing is added to ``app/``.

    DATABASE_URL=... python bench/ceiling.py PORT WORKERS
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio.to_thread
import uvicorn
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.persistence.db import Database

ROWS = int(os.environ.get("BENCH_ROWS", "10000"))
_db: Database | None = None


def database() -> Database:
    global _db
    if _db is None:
        _db = Database(os.environ["DATABASE_URL"])
    return _db


def prepare(rows: int) -> None:
    """Create and fill ``bench_rows`` (id 1..rows) once, before the workers start."""
    with database().transaction(write=True) as session:
        session.execute(text("DROP TABLE IF EXISTS bench_rows"))
        session.execute(text("CREATE TABLE bench_rows (id INTEGER PRIMARY KEY, n INTEGER)"))
        session.execute(
            text("INSERT INTO bench_rows (id, n) VALUES (:id, 0)"),
            [{"id": i} for i in range(1, rows + 1)],
        )
    database().dispose()


def update(row: int) -> None:
    with database().transaction(write=True) as session:
        session.execute(text("UPDATE bench_rows SET n = n + 1 WHERE id = :id"), {"id": row})


async def _answer(send: Any, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if _db is not None:
                    _db.dispose()
                await send({"type": "lifespan.shutdown.complete"})
                return
    path: str = scope["path"]
    if path in ("/healthz", "/readyz"):
        await _answer(send, 200, b'{"status":"ok"}')
    elif path.startswith("/rows/") and scope["method"] == "PUT":
        await anyio.to_thread.run_sync(update, int(path.removeprefix("/rows/")))
        await _answer(send, 200, b'{"ok":true}')
    else:
        await _answer(send, 404, b'{"status":404}')


def main() -> None:
    port, workers = int(sys.argv[1]), int(sys.argv[2])
    prepare(ROWS)
    uvicorn.run(
        "ceiling:app",
        app_dir=str(Path(__file__).resolve().parent),
        host="127.0.0.1",
        port=port,
        workers=workers,
        log_level="warning",
        access_log=False,
        loop="auto",
        http="auto",
        proxy_headers=True,
    )


if __name__ == "__main__":
    main()
