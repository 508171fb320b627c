"""Scale: do lookups stay flat from 1,000 to 1,000,000 stored games?

    python -m bench.scale --db postgres                   # 1,000 then 1,000,000 games
    python -m bench.scale --db sqlite --games 100000      # a quicker run

Fills a fresh database (migrated by Alembic) in bulk -- COPY on PostgreSQL, executemany in
big transactions on SQLite -- with copies of one real 4-player game (its ``games`` row and
its ``game_created`` event, made by the service itself in process), measures
``GET /v1/games/{id}`` and ``PUT .../players/{pid}/faith`` on random games with wrk
against ``python -m app``, grows the database to ``--games`` and measures again with the
same server settings, then prints the query plans (EXPLAIN) of every statement those two
operations send, to show that they use the primary keys.

Bulk rows are deterministic: game ``i`` has id ``f"{i:032x}"`` and host token
``f"host-{i}"`` (stored as its SHA-256, like the service does).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import sqlite3
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import event, text

from app.main import create_app
from app.persistence.migrate import upgrade
from app.settings import Settings
from bench.harness import (
    DEFAULT_PG_SERVER,
    RssSampler,
    WrkResult,
    app_command,
    fresh_database,
    require_wrk,
    run_wrk,
    serve,
    workdir,
)
from bench.scenarios import PLAYERS
from bench.seeding import write_lua_data
from tests.support.servers import free_port

BATCH = 20_000
NO_LIMITS: dict[str, Any] = {"game_creation_rate": 0, "game_write_rate": 0}


def game_id(i: int) -> str:
    return f"{i:032x}"


def host_token(i: int) -> str:
    return f"host-{i}"


def _plain(value: Any) -> Any:
    """A column value as COPY and sqlite3 take it: JSON as text, times as ISO text."""
    if isinstance(value, dict | list):
        return json.dumps(value)
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    return value


class Template:
    """One game created by the service (``PLAYERS``, seed 1): its ``games`` row and its
    event, as column lists with the game id replaced in every text."""

    def __init__(self, url: str) -> None:
        app = create_app(Settings(database_url=url, **NO_LIMITS))

        async def create() -> str:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
                answer = await client.post("/v1/games", json={"players": PLAYERS, "seed": 1})
                answer.raise_for_status()
                return str(answer.json()["game"]["id"])

        self.id = asyncio.run(create())
        with app.state.db.engine.connect() as conn:
            game = conn.execute(text("SELECT * FROM games WHERE id = :id"), {"id": self.id})
            self.game_columns = list(game.keys())
            game_row = [_plain(v) for v in game.one()]
            logged = conn.execute(text("SELECT * FROM events WHERE game_id = :id"), {"id": self.id})
            self.event_columns = list(logged.keys())
            event_row = [_plain(v) for v in logged.one()]
            # The template leaves the database: the bulk games take ids 0..N-1.
            conn.execute(text("DELETE FROM events WHERE game_id = :id"), {"id": self.id})
            conn.execute(text("DELETE FROM idempotency_keys WHERE game_id = :id"), {"id": self.id})
            conn.execute(text("DELETE FROM games WHERE id = :id"), {"id": self.id})
            conn.commit()
        app.state.live_hub.stop()
        app.state.db.dispose()
        self.game_row, self.event_row = game_row, event_row
        self.token_column = self.game_columns.index("host_token_hash")

    def rows_of(self, i: int) -> tuple[list[Any], list[Any]]:
        gid = game_id(i)

        def renamed(row: list[Any]) -> list[Any]:
            return [v.replace(self.id, gid) if isinstance(v, str) else v for v in row]

        game = renamed(self.game_row)
        game[self.token_column] = hashlib.sha256(host_token(i).encode()).hexdigest()
        return game, renamed(self.event_row)


def rows(
    template: Template, start: int, end: int
) -> Iterator[tuple[list[list[Any]], list[list[Any]]]]:
    """Batches of (games rows, events rows) for games ``start..end-1``."""
    for first in range(start, end, BATCH):
        games, events = [], []
        for i in range(first, min(first + BATCH, end)):
            game, logged = template.rows_of(i)
            games.append(game)
            events.append(logged)
        yield games, events


def fill_postgres(template: Template, url: str, start: int, end: int) -> None:
    import psycopg

    tables = (("games", template.game_columns), ("events", template.event_columns))
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        for done, batch in zip(range(start, end, BATCH), rows(template, start, end), strict=False):
            for (table, columns), data in zip(tables, batch, strict=True):
                with cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                    for row in data:
                        copy.write_row(row)
            conn.commit()
            progress(done + len(batch[0]), start, end)
        conn.autocommit = True
        cur.execute("VACUUM ANALYZE")


def fill_sqlite(template: Template, path: str, start: int, end: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    insert_game = "INSERT INTO games ({}) VALUES ({})".format(
        ", ".join(template.game_columns), ", ".join("?" * len(template.game_columns))
    )
    insert_event = "INSERT INTO events ({}) VALUES ({})".format(
        ", ".join(template.event_columns), ", ".join("?" * len(template.event_columns))
    )
    for done, (games, events) in zip(
        range(start, end, BATCH), rows(template, start, end), strict=False
    ):
        with conn:
            conn.executemany(insert_game, games)
            conn.executemany(insert_event, events)
        progress(done + len(games), start, end)
    conn.execute("ANALYZE")
    conn.close()


_started = time.perf_counter()


def progress(done: int, start: int, end: int) -> None:
    if (done - start) % (BATCH * 10) == 0 or done == end:
        rate = (done - start) / max(time.perf_counter() - _started, 1e-9)
        print(f"    filled {done:,}/{end:,} games ({rate:,.0f} games/s)", flush=True)


def fill(template: Template, db: str, url: str, start: int, end: int) -> float:
    global _started
    _started = time.perf_counter()
    print(f"  filling games {start:,}..{end - 1:,}", flush=True)
    if db == "postgres":
        fill_postgres(template, url, start, end)
    else:
        fill_sqlite(template, url.removeprefix("sqlite:///"), start, end)
    return time.perf_counter() - _started


def sample_file(total: int, path: Path, count: int = 5000) -> Path:
    picks = random.sample(range(total), min(count, total))
    write_lua_data([[game_id(i), host_token(i), ["p1", "p2", "p3", "p4"]] for i in picks], path)
    return path


def measure(
    db: str, url: str, total: int, args: argparse.Namespace, tmp: Path
) -> dict[tuple[str, int], WrkResult]:
    data = sample_file(total, tmp / f"scale-{total}.lua")
    port = free_port()
    env = {"DATABASE_URL": url, "LOG_LEVEL": args.log_level}
    results: dict[tuple[str, int], WrkResult] = {}
    with serve(app_command(port, args.workers), env, port, tmp / f"scale-{total}.log") as server:
        run_wrk(server.base_url, "get_game.lua", [str(data)], 8, 1)  # warm-up
        for script, name in (("get_game.lua", "get-game"), ("put_faith.lua", "put-faith")):
            for connections in args.connections:
                with RssSampler(server.pid):
                    result = run_wrk(
                        server.base_url, script, [str(data)], connections, args.duration
                    )
                results[(name, connections)] = result
                print(
                    f"  {db:8} {total:>9,} games  {name:10} c={connections:<3}"
                    f" {result.rps:8.0f} req/s  p50 {result.p50_ms:7.2f} ms"
                    f"  p99 {result.p99_ms:7.2f} ms  errors {result.non2xx + result.socket_errors}",
                    flush=True,
                )
    return results


def explain(db: str, url: str, total: int) -> str:
    """The plans of the statements a read and a faith change send, on a random game,
    captured from the service itself in process."""
    app = create_app(Settings(database_url=url, **NO_LIMITS))
    engine = app.state.db.engine
    captured: list[tuple[str, object]] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith(("SELECT", "UPDATE", "INSERT")):
            captured.append((statement, parameters))

    i = random.randrange(total)
    auth = {"Authorization": f"Bearer {host_token(i)}"}

    async def read_and_change() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            (await client.get(f"/v1/games/{game_id(i)}", headers=auth)).raise_for_status()
            url_faith = f"/v1/games/{game_id(i)}/players/p2/faith"
            (await client.put(url_faith, json={"faith": 7}, headers=auth)).raise_for_status()

    event.listen(engine, "before_cursor_execute", record)
    try:
        asyncio.run(read_and_change())
    finally:
        event.remove(engine, "before_cursor_execute", record)
    lines = []
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        for statement, parameters in captured:
            if statement.startswith("INSERT") and db == "sqlite":
                continue  # an INSERT has no lookup plan on SQLite
            prefix = "EXPLAIN " if db == "postgres" else "EXPLAIN QUERY PLAN "
            cursor.execute(prefix + statement, parameters)
            plan = [" | ".join(str(c) for c in row) for row in cursor.fetchall()]
            lines.append(" ".join(statement.split())[:150])
            lines += [f"    {p}" for p in plan]
        raw.rollback()
    finally:
        raw.close()
        app.state.live_hub.stop()
        app.state.db.dispose()
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default="postgres", choices=["postgres", "sqlite"])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--connections", default="1,64")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--pg-server", default=DEFAULT_PG_SERVER)
    args = parser.parse_args()
    args.connections = [int(c) for c in args.connections.split(",")]
    require_wrk()
    tmp = workdir()
    with fresh_database(args.db, args.pg_server, tmp) as url:
        upgrade(url)
        template = Template(url)
        fill(template, args.db, url, 0, args.small)
        small = measure(args.db, url, args.small, args, tmp)
        seconds = fill(template, args.db, url, args.small, args.games)
        print(f"  filled {args.games - args.small:,} games in {seconds:.0f}s", flush=True)
        large = measure(args.db, url, args.games, args, tmp)
        print(
            f"\n| db | operation | conns | {args.small:,} games req/s (p99 ms) "
            f"| {args.games:,} games req/s (p99 ms) | ratio |"
        )
        print("|---|---|---:|---:|---:|---:|")
        for key, before in small.items():
            after = large[key]
            print(
                f"| {args.db} | {key[0]} | {key[1]} | {before.rps:.0f} ({before.p99_ms:.1f}) "
                f"| {after.rps:.0f} ({after.p99_ms:.1f}) | {after.rps / before.rps:.2f} |"
            )
        print(f"\nQuery plans at {args.games:,} games ({args.db}):")
        print(explain(args.db, url, args.games))


if __name__ == "__main__":
    main()
