"""Scale: do lookups stay flat from 1,000 to 1,000,000 stored games?

    python bench/scale.py --db postgres                   # 1,000 then 1,000,000 games
    python bench/scale.py --db sqlite --games 100000      # a quicker run

Fills a fresh database (migrated by Alembic) in bulk -- COPY on PostgreSQL, executemany in
big transactions on SQLite -- with games of 4 players, their 3 reports and their
``game_created`` event, measures ``GET /v1/games/{id}`` and ``PUT .../players/{pid}/faith``
on random games with wrk against ``python -m app``, grows the database to ``--games`` and
measures again with the same server settings, then prints the query plans (EXPLAIN) of
every statement those two operations send, to show that they use the primary keys.

Bulk rows are deterministic: game ``i`` has id ``f"{i:032x}"`` and host token
``f"host-{i}"`` (stored as its SHA-256, like the service does).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import (
    DEFAULT_PG_SERVER,
    RssSampler,
    app_command,
    free_port,
    fresh_database,
    require_wrk,
    run_wrk,
    serve,
    workdir,
)
from run import write_lua_data

from app.persistence.db import Database
from app.persistence.migrate import upgrade
from app.persistence.repositories import GameRepository
from app.services.games import GameService

BATCH = 20_000
AT = "2025-01-01 00:00:00+00:00"
PLAYER_HASH = hashlib.sha256(b"bench-player").hexdigest()
TILES = json.dumps({"1": "I-4", "2": "II-6", "3": "III-1"})
CREATED = json.dumps({"bulk": True})


def game_id(i: int) -> str:
    return f"{i:032x}"


def host_token(i: int) -> str:
    return f"host-{i}"


def rows(start: int, end: int) -> Iterator[tuple[list, ...]]:
    """Batches of rows for games ``start..end-1``, one list per table of ``TABLES``."""
    for first in range(start, end, BATCH):
        games, players, reports, events = [], [], [], []
        decisions: list[tuple] = []
        excommunications: list[tuple] = []
        for i in range(first, min(first + BATCH, end)):
            gid = game_id(i)
            token_hash = hashlib.sha256(host_token(i).encode()).hexdigest()
            games.append((gid, 1, i, '["base"]', TILES, False, token_hash, AT, AT))
            for seat in range(4):
                players.append(
                    (gid, f"p{seat + 1}", f"Player {seat + 1}", seat, seat, 0, 0, "[]", PLAYER_HASH)
                )
            for period in (1, 2, 3):
                reports.append((gid, period, "open"))
            # One decision and one excommunication per game, so their lookups have rows
            # to search like a played game's.
            decisions.append((gid, 1, "p1", "support", AT))
            excommunications.append((gid, "p2", 1, "I-4"))
            events.append((gid, 1, "game_created", AT, CREATED))
        yield games, players, reports, events, decisions, excommunications


GAME_COLUMNS = (
    "id, version, seed, expansions, tile_ids, players_enter_faith, host_token_hash,"
    " created_at, updated_at"
)
PLAYER_COLUMNS = (
    "game_id, id, name, seat, turn_position, faith, report_victory_points, leaders, token_hash"
)
REPORT_COLUMNS = "game_id, period, status"
EVENT_COLUMNS = "game_id, seq, type, at, data"
DECISION_COLUMNS = "game_id, period, player_id, choice, updated_at"
EXCOMMUNICATION_COLUMNS = "game_id, player_id, period, tile_id"
TABLES = ("games", "players", "reports", "events", "report_decisions", "excommunications")
COLUMNS = (
    GAME_COLUMNS,
    PLAYER_COLUMNS,
    REPORT_COLUMNS,
    EVENT_COLUMNS,
    DECISION_COLUMNS,
    EXCOMMUNICATION_COLUMNS,
)


def fill_postgres(url: str, start: int, end: int) -> None:
    import psycopg

    with psycopg.connect(url) as conn, conn.cursor() as cur:
        for done, batch in zip(range(start, end, BATCH), rows(start, end), strict=False):
            for table, columns, data in zip(TABLES, COLUMNS, batch, strict=True):
                with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    for row in data:
                        copy.write_row(row)
            conn.commit()
            progress(done + len(batch[0]), start, end)
        conn.autocommit = True
        cur.execute("VACUUM ANALYZE")


def fill_sqlite(path: str, start: int, end: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    for done, (games, players, reports, events) in zip(
        range(start, end, BATCH), rows(start, end), strict=False
    ):
        with conn:
            conn.executemany(
                f"INSERT INTO games ({GAME_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", games
            )
            conn.executemany(
                f"INSERT INTO players ({PLAYER_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", players
            )
            conn.executemany(f"INSERT INTO reports ({REPORT_COLUMNS}) VALUES (?,?,?)", reports)
            conn.executemany(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?,?,?,?,?)", events)
        progress(done + len(games), start, end)
    conn.execute("ANALYZE")
    conn.close()


_started = time.perf_counter()


def progress(done: int, start: int, end: int) -> None:
    if (done - start) % (BATCH * 10) == 0 or done == end:
        rate = (done - start) / max(time.perf_counter() - _started, 1e-9)
        print(f"    filled {done:,}/{end:,} games ({rate:,.0f} games/s)", flush=True)


def fill(db: str, url: str, start: int, end: int) -> float:
    global _started
    _started = time.perf_counter()
    print(f"  filling games {start:,}..{end - 1:,}", flush=True)
    if db == "postgres":
        fill_postgres(url, start, end)
    else:
        fill_sqlite(url.removeprefix("sqlite:///"), start, end)
    return time.perf_counter() - _started


def sample_file(total: int, path: Path, count: int = 5000) -> Path:
    picks = random.sample(range(total), min(count, total))
    write_lua_data([[game_id(i), host_token(i), ["p1", "p2", "p3", "p4"]] for i in picks], path)
    return path


def measure(db: str, url: str, total: int, args: argparse.Namespace, tmp: Path) -> dict:
    data = sample_file(total, tmp / f"scale-{total}.lua")
    port = free_port()
    env = {"DATABASE_URL": url, "LOG_LEVEL": args.log_level}
    results: dict = {}
    with serve(app_command(port, args.workers), env, port, tmp / f"scale-{total}.log") as server:
        run_wrk(server.base_url, "get_game.lua", [str(data)], 8, 1)  # warm-up
        for script, name in (("get_game.lua", "get-game"), ("put_faith.lua", "put-faith")):
            for connections in args.connections:
                with RssSampler(server.process.pid):
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
    """The plans of the statements a read and a faith update send, on a random game."""
    database = Database(url)
    captured: list[tuple[str, object]] = []

    from sqlalchemy import event

    def record(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if not statement.startswith("BEGIN"):
            captured.append((statement, parameters))

    i = random.randrange(total)
    event.listen(database.engine, "before_cursor_execute", record)
    try:
        with database.transaction(write=False) as session:
            GameRepository(session).get(game_id(i))
        GameService(database, None).set_faith(  # type: ignore[arg-type]
            game_id(i), {"p2": 7}, host_token(i), None, single=True
        )
    finally:
        event.remove(database.engine, "before_cursor_execute", record)
    lines = []
    raw = database.engine.raw_connection()
    try:
        cursor = raw.cursor()
        for statement, parameters in captured:
            prefix = "EXPLAIN " if db == "postgres" else "EXPLAIN QUERY PLAN "
            if statement.startswith("INSERT") and db == "sqlite":
                continue  # an INSERT has no lookup plan on SQLite
            cursor.execute(prefix + statement, parameters)
            plan = [" | ".join(str(c) for c in row) for row in cursor.fetchall()]
            lines.append(" ".join(statement.split())[:150])
            lines += [f"    {p}" for p in plan]
        raw.rollback()
    finally:
        raw.close()
        database.dispose()
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
        fill(args.db, url, 0, args.small)
        small = measure(args.db, url, args.small, args, tmp)
        seconds = fill(args.db, url, args.small, args.games)
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
