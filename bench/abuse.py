"""Abuse: how fast can one client fill the database, with the limits off and on?

    python -m bench.abuse                       # both databases, 20 s per run
    python -m bench.abuse --db sqlite --seconds 10

One client (one address, 8 connections) creates games as fast as it can, each with a fresh
Idempotency-Key as in the issue, against ``python -m app`` on a fresh database: once with
the rate limits off, once with the settings' defaults. It prints games created per second,
the 429s, the bytes each game takes (games, events and idempotency keys; PostgreSQL:
relation sizes, SQLite: file growth) and what that allows one address per day. Results go to
``bench/ABUSE.md`` by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from pathlib import Path

import httpx

from app.settings import Settings
from bench.harness import (
    DEFAULT_PG_SERVER,
    app_command,
    fresh_database,
    machine,
    serve,
    workdir,
)
from tests.support.servers import free_port

GAME = {"players": [{"name": "Anna"}, {"name": "Bruno"}, {"name": "Carla"}], "seed": 42}
CONNECTIONS = 8


def _defaults() -> dict[str, str]:
    fields = Settings.model_fields
    names = ["game_creation_rate", "game_creation_burst", "game_write_rate", "game_write_burst"]
    return {name.upper(): str(fields[name].default) for name in names}


async def _flood_writes(base_url: str, seconds: float) -> dict[int, int]:
    """One game, changed as fast as 8 connections can (each change logs one event)."""
    statuses: dict[int, int] = {}
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=CONNECTIONS)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as client:
        created = (await client.post("/v1/games", json=GAME)).json()
        url = f"/v1/games/{created['game']['id']}/players/p1/faith"
        host = {"Authorization": f"Bearer {created['host_token']}"}

        async def worker(n: int) -> None:
            while time.monotonic() < deadline:
                answer = await client.put(url, json={"faith": n % 16}, headers=host)
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
                n += 1

        await asyncio.gather(*(worker(i) for i in range(CONNECTIONS)))
    return statuses


async def _flood(base_url: str, seconds: float) -> dict[int, int]:
    statuses: dict[int, int] = {}
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=CONNECTIONS)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as client:

        async def worker() -> None:
            while time.monotonic() < deadline:
                key = {"Idempotency-Key": uuid.uuid4().hex + uuid.uuid4().hex}
                answer = await client.post("/v1/games", json=GAME, headers=key)
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

        await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))
    return statuses


def _stored_bytes(url: str) -> int:
    if url.startswith("sqlite"):
        path = Path(url.removeprefix("sqlite:///"))
        return sum(
            Path(f"{path}{s}").stat().st_size for s in ("", "-wal") if Path(f"{path}{s}").exists()
        )
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT sum(pg_total_relation_size(c)) FROM unnest(ARRAY['games', 'events',"
            " 'idempotency_keys', 'creation_limits']::regclass[]) AS c"
        ).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _run(
    kind: str, pg_server: str, seconds: float, limits: dict[str, str], tmp: Path, what: str
) -> str:
    flood = _flood if what == "createGame" else _flood_writes
    ok = 201 if what == "createGame" else 200
    with fresh_database(kind, pg_server, tmp) as url:
        port = free_port()
        env = {"DATABASE_URL": url, "LOG_LEVEL": "warning", **limits}
        with serve(app_command(port, 1), env, port, tmp / f"abuse-{kind}.log") as server:
            before = _stored_bytes(url)
            started = time.monotonic()
            statuses = asyncio.run(flood(server.base_url, seconds))
            elapsed = time.monotonic() - started
            after = _stored_bytes(url)
    done = statuses.get(ok, 0)
    each = (after - before) / done if done else 0
    per_second = done / elapsed
    return (
        f"| {kind} | {what} | {'on' if limits.get('GAME_CREATION_RATE') != '0' else 'off'} "
        f"| {elapsed:.0f} | {done} | {statuses.get(429, 0)} | {per_second:.1f} "
        f"| {each / 1024:.2f} | {per_second * 86400 * each / 1e9:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--pg-server", default=DEFAULT_PG_SERVER)
    args = parser.parse_args()
    tmp = workdir()
    print(machine())
    print(f"defaults: {_defaults()}")
    print(
        "| db | operation | limits | s | stored | 429 | stored/s | KiB each | GB/day at that rate |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    kinds = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    for kind in kinds:
        off = {"GAME_CREATION_RATE": "0", "GAME_WRITE_RATE": "0", "PLAYER_WRITE_RATE": "0"}
        for what in ("createGame", "setPlayerFaith"):
            for limits in (off, _defaults()):
                row = _run(kind, args.pg_server, args.seconds, limits, tmp, what)
                print(row, flush=True)


if __name__ == "__main__":
    main()
