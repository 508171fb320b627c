"""How long the first request of each new connection waits when many connections open at
once on a saturated worker, on each event loop: the tail the tenth round found on uvloop.

    python -m bench.accept_ramp                        # 64 connections, 3 rounds of 4 s
    python -m bench.accept_ramp --connections 256 --path /v1/faith-track

Serves ``python -m app`` on each event loop (``EVENT_LOOP``) in turn. A client of its own
(on uvloop, in this process) opens every connection before it sends anything, as wrk
does, then runs a closed loop on each for ``--seconds``, timing every request. It reports
the first request of each connection apart from the rest: how long the first requests
waited (median and slowest) and whether the slowest first requests are the connections
accepted last, against the p50, p99 and slowest of the rest. libuv, under uvloop, accepts
one connection per turn of its loop (libuv/libuv#3696), and each turn serves every
connection accepted so far; the standard library's loop accepts all that are waiting at
once. ``bench/RESULTS.md`` (eleventh round) says what it showed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, get_args

import uvloop

from app.settings import EventLoop
from bench.harness import app_command, serve
from tests.support.servers import free_port

LOOPS: tuple[str, ...] = get_args(EventLoop)


class Connection:
    """One kept-alive connection and the latency of each request it sent, in ms."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.latencies: list[float] = []

    async def run(self, request: bytes, until: float) -> None:
        while time.perf_counter() < until:
            sent = time.perf_counter()
            self.writer.write(request)
            head = await self.reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            await self.reader.readexactly(length)
            self.latencies.append((time.perf_counter() - sent) * 1000)
        self.writer.close()


async def load(port: int, path: str, connections: int, seconds: float) -> list[list[float]]:
    """Every connection's latencies, in the order the connections were opened."""
    request = f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
    opened = [
        Connection(*await asyncio.open_connection("127.0.0.1", port)) for _ in range(connections)
    ]
    until = time.perf_counter() + seconds
    await asyncio.gather(*(c.run(request, until) for c in opened))
    return [c.latencies for c in opened]


def summary(latencies: list[list[float]]) -> dict[str, Any]:
    first = [each[0] for each in latencies if each]
    rest = sorted(value for each in latencies for value in each[1:])
    half = len(first) // 2
    return {
        "first_p50_ms": statistics.median(first),
        "first_max_ms": max(first),
        # Opened last, accepted last: slower than the first half, where libuv paces accepts.
        "last_half_over_first_half": statistics.median(first[half:])
        / statistics.median(first[:half]),
        "rest_requests": len(rest),
        "rest_p50_ms": rest[len(rest) // 2],
        "rest_p99_ms": rest[int(len(rest) * 0.99)],
        "rest_max_ms": rest[-1],
    }


def measure(loop: str, path: str, connections: int, seconds: float, folder: Path) -> dict[str, Any]:
    port = free_port()
    env = {
        "EVENT_LOOP": loop,
        "DATABASE_URL": f"sqlite:///{folder}/{loop}.sqlite",
        "LOG_LEVEL": "warning",
        "MAX_CONNECTIONS_PER_ADDRESS": str(2 * connections),
    }
    with serve(app_command(port, 1), env, port, folder / f"{loop}.log"):
        uvloop.run(load(port, path, connections, 1.0))  # warm: the first requests it serves
        return summary(uvloop.run(load(port, path, connections, seconds)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--path", default="/healthz")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for round_number in range(1, args.rounds + 1):
            for loop in LOOPS:
                print(f"round {round_number}/{args.rounds}: {loop}...", flush=True)
                found = measure(loop, args.path, args.connections, args.seconds, Path(folder))
                rows.append((round_number, loop, found))
    print(
        f"\n{args.connections} connections opened at once, then {args.seconds:g} s of "
        f"{args.path}\n\n| round | loop | first requests: p50 ms | max ms | last half / first "
        "half | the rest: requests | p50 ms | p99 ms | max ms |\n|---|---|---:|---:|---:|---:|"
        "---:|---:|---:|"
    )
    for round_number, loop, r in rows:
        print(
            f"| {round_number} | {loop} | {r['first_p50_ms']:.1f} | {r['first_max_ms']:.1f} | "
            f"{r['last_half_over_first_half']:.1f} | {r['rest_requests']:,} | "
            f"{r['rest_p50_ms']:.2f} | {r['rest_p99_ms']:.2f} | {r['rest_max_ms']:.1f} |"
        )


if __name__ == "__main__":
    main()
