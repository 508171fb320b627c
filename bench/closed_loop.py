"""The same load as wrk's, measured by another client: N keep-alive connections, each
sending its next request as soon as its answer is read (a closed loop, as wrk's), on an
asyncio event loop of its own, timing every request.

    python -m bench.closed_loop --scenario put-faith --connections 64 --seconds 6
    python -m bench.closed_loop --scenario get-game --checkout before=/tmp/old --rounds 3

wrk's p99 at 64 connections is mostly the stack's once a worker's event loop is saturated
(``bench/tail_check.py``): requests wait many loop turns that no event loop sees. This
client reads each answer as its own loop gets to it, so its tail is a second opinion on the
service's, not a replacement for wrk's figures. It prints, per variant and round, requests
a second, p50, p99, the slowest request, the slowest connection's p99 and the worker's CPU
time per request (user and system, from ``/proc``: steadier than a rate on a shared host),
and its system part (the kernel's: sockets, writes, wake-ups).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.harness import (
    DEFAULT_PG_SERVER,
    app_command,
    cpu_seconds,
    fresh_database,
    percentile,
    serve,
    workdir,
)
from bench.seeding import seed
from tests.support.servers import free_port

Game = list[Any]  # [id, host token, sorted player ids], as bench/seeding.py writes them
Request = Callable[[random.Random], bytes]


def _with_body(method: str, path: str, token: str, body: dict[str, Any], *more: str) -> bytes:
    """A request with a JSON body, its token and ``more`` header lines."""
    data = json.dumps(body).encode()
    head = "".join(
        (
            f"{method} {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\n",
            *(f"{line}\r\n" for line in more),
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n",
        )
    )
    return head.encode() + data


def _get(path: str, token: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\n\r\n".encode()


def _put_faith(games: list[Game]) -> Request:
    def request(rnd: random.Random) -> bytes:
        game_id, token, players = games[rnd.randrange(len(games))]
        path = f"/v1/games/{game_id}/players/{rnd.choice(players)}/faith"
        return _with_body("PUT", path, token, {"faith": rnd.randint(0, 15)})

    return request


def _get_game(games: list[Game]) -> Request:
    def request(rnd: random.Random) -> bytes:
        game_id, token, _ = games[rnd.randrange(len(games))]
        return _get(f"/v1/games/{game_id}", token)

    return request


def _change_faith_keyed(games: list[Game]) -> Request:
    """A Faith change with a fresh Idempotency-Key, as the SDK sends every keyed change."""

    def request(rnd: random.Random) -> bytes:
        game_id, token, players = games[rnd.randrange(len(games))]
        path = f"/v1/games/{game_id}/players/{rnd.choice(players)}/faith-changes"
        key = uuid.UUID(int=rnd.getrandbits(128), version=4)
        body = {"delta": rnd.choice((-1, 1))}
        return _with_body("POST", path, token, body, f"Idempotency-Key: {key}")

    return request


def _get_report(games: list[Game]) -> Request:
    """A period's report, as the SDK's ``gameState`` reads all three with each game."""

    def request(rnd: random.Random) -> bytes:
        game_id, token, _ = games[rnd.randrange(len(games))]
        return _get(f"/v1/games/{game_id}/reports/{rnd.randint(1, 3)}", token)

    return request


def _gain_adjustments(games: list[Game]) -> Request:
    """Gains under a player's stored excommunications and leaders (a calculation that reads
    its game)."""
    gains = {"gains": [{"source": {"kind": "action_space"}, "resources": {"coins": 2, "wood": 1}}]}

    def request(rnd: random.Random) -> bytes:
        game_id, token, players = games[rnd.randrange(len(games))]
        path = f"/v1/games/{game_id}/players/{rnd.choice(players)}/gain-adjustments"
        return _with_body("POST", path, token, gains)

    return request


SCENARIOS = {
    "put-faith": _put_faith,
    "get-game": _get_game,
    "get-report": _get_report,
    "gain-adjustments": _gain_adjustments,
    "change-faith-keyed": _change_faith_keyed,
}


async def _connection(
    port: int, request: Request, seed_: int, until: float, timings: list[float]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    rnd = random.Random(seed_)
    try:
        while time.monotonic() < until:
            sent = request(rnd)
            started = time.monotonic()
            writer.write(sent)
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 2"):
                raise SystemExit(f"answered {head.split(b' ', 2)[1].decode()}")
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            await reader.readexactly(length)
            timings.append(time.monotonic() - started)
    finally:
        writer.close()


async def _load(port: int, request: Request, connections: int, seconds: float) -> list[list[float]]:
    until = time.monotonic() + seconds
    timings: list[list[float]] = [[] for _ in range(connections)]
    await asyncio.gather(
        *(_connection(port, request, n, until, timings[n]) for n in range(connections))
    )
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="put-faith")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--pg-server", default=DEFAULT_PG_SERVER)
    parser.add_argument(
        "--checkout", action="append", default=[], help="NAME=DIR: a variant served from DIR"
    )
    args = parser.parse_args()
    variants = dict(c.split("=", 1) for c in args.checkout) or {"here": str(Path.cwd())}
    tmp = workdir()
    for round_ in range(args.rounds):
        for name, where in variants.items():
            # Each variant's own `python -m app` migrates its database to its own head (a
            # tree before a migration could not start on a database past it).
            with fresh_database(args.db, args.pg_server, tmp) as url:
                port = free_port()
                env = {"DATABASE_URL": url, "LOG_LEVEL": "info", "PYTHONPATH": where}
                log = tmp / f"{name}.log"
                with serve(app_command(port, 1), env, port, log, cwd=Path(where)) as server:
                    games = seed(server.base_url, 200, False, "games", tmp / "games.lua")
                    request = SCENARIOS[args.scenario](games)
                    asyncio.run(_load(port, request, args.connections, 1.0))  # warm-up
                    user, system = cpu_seconds(server.pid)
                    timings = asyncio.run(_load(port, request, args.connections, args.seconds))
                    user_after, system_after = cpu_seconds(server.pid)
                    user, system = user_after - user, system_after - system
            every = [t for per_connection in timings for t in per_connection]
            ms = {
                "p50": statistics.median(every) * 1e3,
                "p99": percentile(every, 0.99) * 1e3,
                "max": max(every) * 1e3,
                "slowest connection's p99": max(percentile(t, 0.99) for t in timings if t) * 1e3,
            }
            figures = "  ".join(f"{what} {value:6.1f} ms" for what, value in ms.items())
            rate = len(every) / args.seconds
            print(
                f"round {round_ + 1} {name:>8} {args.scenario} c={args.connections}: "
                f"{rate:7.0f} req/s  {figures}  "
                f"worker CPU {(user + system) / len(every) * 1e6:5.0f} us/request "
                f"(system {system / len(every) * 1e6:4.0f})",
                flush=True,
            )


if __name__ == "__main__":
    main()
