"""The service's own app with in-app probe routes added, served like ``python -m app``
(``python -m bench.run --in-app``).

Not ceilings: the frozen ceilings are the standalone apps of ``bench/ceilings/``. These
routes run the cheapest request of each kind on the service's own stack (the same app
object, middleware, database pool, unit of work, threadpool and uvicorn options), so that
set side by side they say where a stored route's cost is: the framework, SQLAlchemy, the
pool or the route itself.

- ``GET /bench/read-ceiling/{game_id}``: one indexed ``SELECT document FROM games WHERE
  id = :id`` on the path the service's own reads of a game take, the stored text returned
  as the body (the least any read of a stored game can do): the app's reads on the event
  loop (``async_reads.py`` on PostgreSQL, ``sqlite_reads.py`` on a SQLite file; the same
  connections and bounds, no thread), or with ``DB_ASYNC_READS=false``
  ``Database.transaction(write=False)`` in the threadpool.
- ``PUT /bench/txn-ceiling/{n}``: one ``UPDATE bench_rows SET n = n + 1 WHERE id = :id``
  in ``Database.transaction(write=True)`` in the threadpool (the least any write can do).
- ``GET /bench/read-ceiling-threadpool/{game_id}``: the same SELECT in
  ``Database.transaction(write=False)`` in the threadpool, whatever the database.
- ``GET /bench/read-ceiling-raw/{game_id}``: the same SELECT on a pooled DBAPI connection
  in the threadpool, without SQLAlchemy's ``Connection`` around it.

Nothing is added to ``app/``: these routes exist only in this benchmark process.

    DATABASE_URL=... BENCH_ROWS=10000 python -m bench.in_app PORT WORKERS
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys

from fastapi import FastAPI, Response
from sqlalchemy import text

from app.__main__ import log_config
from app.main import create_app
from app.persistence.db import Database
from app.server.serve import serve
from app.settings import get_settings

ROWS = int(os.environ.get("BENCH_ROWS", "10000"))


def prepare(database_url: str, rows: int) -> None:
    """Migrate, then create and fill ``bench_rows`` (id 1..rows), once before the workers."""
    from app.persistence.migrate import upgrade

    upgrade(database_url)
    db = Database(database_url)
    with db.transaction(write=True) as connection:
        connection.execute(text("DROP TABLE IF EXISTS bench_rows"))
        connection.execute(text("CREATE TABLE bench_rows (id INTEGER PRIMARY KEY, n INTEGER)"))
        connection.execute(
            text("INSERT INTO bench_rows (id, n) VALUES (:id, 0)"),
            [{"id": i} for i in range(1, rows + 1)],
        )
    db.dispose()


def with_probes(app: FastAPI) -> FastAPI:
    """``app`` with the in-app probe routes, on its own database object and read path."""
    db: Database = app.state.db

    def read_in_a_thread(game_id: str) -> Response:
        with db.transaction(write=False) as connection:
            document = connection.execute(
                text("SELECT document FROM games WHERE id = :id"), {"id": game_id}
            ).scalar_one()
        return Response(document, media_type="application/json")

    app.get("/bench/read-ceiling-threadpool/{game_id}", include_in_schema=False)(read_in_a_thread)
    rows = app.state.game_service.transactions.rows
    if rows is None:
        app.get("/bench/read-ceiling/{game_id}", include_in_schema=False)(read_in_a_thread)
    else:

        @app.get("/bench/read-ceiling/{game_id}", include_in_schema=False)
        async def read_on_the_loop(game_id: str) -> Response:
            # The game's whole row, as the service reads it (the port has no narrower read).
            stored = await rows.document(game_id)
            assert stored is not None
            return Response(stored.document, media_type="application/json")

    @app.get("/bench/read-ceiling-raw/{game_id}", include_in_schema=False)
    def read_ceiling_raw(game_id: str) -> Response:
        # The same SELECT on a pooled DBAPI connection (checkout, its ping and watchdog
        # included), without SQLAlchemy's Connection: what SQLAlchemy costs a read.
        raw = db.engine.raw_connection()
        try:
            cursor = raw.cursor()
            marker = "%s" if db.dialect_name == "postgresql" else "?"
            cursor.execute(f"SELECT document FROM games WHERE id = {marker}", (game_id,))
            row = cursor.fetchone()
            raw.commit()
        finally:
            raw.close()
        assert row is not None  # the load reads only the games it seeded
        return Response(row[0], media_type="application/json")

    @app.put("/bench/txn-ceiling/{row}", include_in_schema=False)
    def txn_ceiling(row: int) -> Response:
        with db.transaction(write=True) as connection:
            connection.execute(text("UPDATE bench_rows SET n = n + 1 WHERE id = :id"), {"id": row})
        return Response(b'{"ok":true}', media_type="application/json")

    return app


def app() -> FastAPI:
    """The factory uvicorn calls in each worker."""
    return with_probes(create_app())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("port", type=int)
    parser.add_argument("workers", type=int)
    args = parser.parse_args()
    port, workers = args.port, args.workers
    settings = get_settings()
    # In a child process, as ``python -m app`` migrates: the server's RSS is its own.
    child = multiprocessing.get_context("fork").Process(
        target=prepare, args=(settings.database_url, ROWS)
    )
    child.start()
    child.join()
    if child.exitcode != 0:
        sys.exit(f"preparing the database failed (exit code {child.exitcode})")
    # The same server, protocol, limits and options as ``python -m app``.
    serve(
        settings,
        host="127.0.0.1",
        port=port,
        workers=workers,
        log_config=log_config(settings.log_level.upper()),
        target="bench.in_app:app",
        factory=True,
    )


if __name__ == "__main__":
    main()
