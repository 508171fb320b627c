"""Live streams at scale: N event streams on one worker over G games, under a steady
write load.

    python -m bench.streams [--db sqlite|postgres] [--streams 1000] [--games 250]
                            [--writers 4] [--seconds 20] [--processes 2]

One ``python -m app`` process (one worker) on a fresh database; G games created through
the API. Then, in one run:

1. the write load alone: ``--writers`` closed-loop clients setting a random game's faith
   for ``--seconds``: writes/s and write latency p50/p99;
2. N streams opened (a bounded number at a time, with progress), N/G per game, read by
   plain asyncio connections (a minimal HTTP/1.1 client: the client must not be the
   bottleneck); the server's RSS before and after: RSS per stream;
3. the same write load with the N streams open: writes/s and latency again (the ratio to
   step 1 is the cost of the streams on the write path), and the fan-out latency of every
   event received, bracketed: receipt minus the event's ``at`` (taken when the change
   began, before its lock wait and commit: an upper bound of commit -> receipt), and
   receipt minus the moment the writer got its answer (after the commit: a lower bound,
   negative when the stream heard first). Client and server share the clock (loopback).

Everything on 127.0.0.1, bounded in time; prints the figures and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from datetime import datetime

import httpx

from bench.harness import (
    DEFAULT_PG_SERVER,
    app_command,
    fresh_database,
    machine,
    percentile,
    serve,
    server_rss,
    workdir,
)
from tests.support.servers import free_port

OPEN_AT_ONCE = 50  # streams being opened concurrently


@dataclass
class Game:
    id: str
    host: str


@dataclass
class Receipts:
    latencies: list[float] = field(default_factory=list)  # receipt - the event's `at`
    seen: list[tuple[str, int, float]] = field(default_factory=list)  # game, seq, receipt
    events: int = 0
    ended: int = 0
    recording: bool = False


async def create_games(client: httpx.AsyncClient, count: int) -> list[Game]:
    games: list[Game] = []
    body = {"players": [{"name": n} for n in ("Anna", "Bruno", "Carla", "Dario")], "seed": 7}
    for i in range(count):
        response = await client.post("/v1/games", json=body)
        response.raise_for_status()
        data = response.json()
        games.append(Game(data["game"]["id"], data["host_token"]))
        if (i + 1) % 50 == 0:
            print(f"  games created: {i + 1}/{count}", flush=True)
    return games


async def write_load(
    client: httpx.AsyncClient,
    games: list[Game],
    writers: int,
    seconds: float,
    acked: dict[tuple[str, int], float] | None = None,
    answered: set[tuple[str, int]] | None = None,
) -> tuple[int, list[float]]:
    """Closed-loop writers for ``seconds``: how many writes, and their latencies; each
    logged write's answer time by (game, seq) in ``acked``. A write of the faith a player
    has logs nothing and answers the version it found, one ``answered`` (shared by every
    load) already holds: it is not in ``acked``."""
    answered = set() if answered is None else answered
    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    rng = random.Random(1)

    async def writer() -> None:
        while time.monotonic() < deadline:
            game = rng.choice(games)
            started = time.monotonic()
            response = await client.put(
                f"/v1/games/{game.id}/players/p1/faith",
                json={"faith": rng.randint(0, 15)},
                headers={"Authorization": f"Bearer {game.host}"},
            )
            if response.status_code == 200:
                latencies.append(time.monotonic() - started)
                key = (game.id, int(response.headers["ETag"].strip('"')))
                if acked is not None and key not in answered:
                    acked[key] = time.time()
                answered.add(key)

    async def progress() -> None:
        while time.monotonic() < deadline:
            await asyncio.sleep(5)
            print(f"  writes so far: {len(latencies)}", flush=True)

    ticker = asyncio.create_task(progress())
    await asyncio.gather(*(writer() for _ in range(writers)))
    ticker.cancel()
    return len(latencies), latencies


async def follow(port: int, game: Game, receipts: Receipts, opened: asyncio.Event) -> None:
    """One stream on a raw connection; records each event's fan-out latency."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
    writer.write(
        (
            f"GET /v1/games/{game.id}/events/stream HTTP/1.1\r\nHost: bench\r\n"
            f"Authorization: Bearer {game.host}\r\nLast-Event-ID: 1\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"stream refused: {status!r}")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass  # headers
    opened.set()
    try:
        while line := await reader.readline():
            # Chunked framing: chunk-size lines and the SSE lines come through as lines;
            # only the data lines matter.
            at = line.find(b'"at":"')
            if line.startswith(b"data: ") and at > 0:
                received = time.time()
                stamp = line[at + 6 : line.index(b'"', at + 6)].decode()
                receipts.events += 1
                if receipts.recording:
                    sent = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
                    receipts.latencies.append(received - sent)
                    seq = int(line[line.index(b'"seq":') + 6 : line.index(b",")])
                    receipts.seen.append((game.id, seq, received))
    finally:
        receipts.ended += 1
        writer.close()


async def run(args: argparse.Namespace) -> None:
    work = workdir()
    print("machine:", json.dumps(machine()), flush=True)
    with fresh_database(args.db, args.pg_server, work) as url:
        port = free_port()
        env = {
            "DATABASE_URL": url,
            "LOG_LEVEL": "warning",
            "MAX_STREAMS": str(args.streams + 100),
            "STREAM_MAX_SECONDS": "3600",
            "STREAM_BUFFER_EVENTS": "256",
            # One client process stands for a thousand clients, all from 127.0.0.1, and a
            # game's host token for all of its followers.
            "MAX_CONNECTIONS_PER_ADDRESS": str(args.streams + 200),
            "MAX_STREAMS_PER_SEAT": str(args.streams),
        }
        with contextlib.ExitStack() as servers:
            server = servers.enter_context(
                serve(app_command(port, 1), env, port, work / "server.log")
            )
            # --processes 2: the writes go through a second process on the same database,
            # so every event reaches the streams across processes (LISTEN/NOTIFY, or the
            # SQLite watcher); the streams and the RSS measured are the first process's.
            writes_to = server.base_url
            if args.processes == 2:
                other = free_port()
                writer = servers.enter_context(
                    serve(app_command(other, 1), env, other, work / "writer.log")
                )
                writes_to = writer.base_url
            limits = httpx.Limits(max_connections=args.writers + 4)
            async with httpx.AsyncClient(base_url=writes_to, timeout=60, limits=limits) as client:
                print(f"creating {args.games} games", flush=True)
                games = await create_games(client, args.games)
                print(f"write load without streams: {args.writers} writers, {args.seconds} s")
                answered: set[tuple[str, int]] = set()
                base_count, base_lat = await write_load(
                    client, games, args.writers, args.seconds, answered=answered
                )
                await asyncio.sleep(1)
                rss_before = sum(server_rss(server.pid).values())

                receipts = Receipts()
                slots = asyncio.Semaphore(OPEN_AT_ONCE)
                tasks: list[asyncio.Task[None]] = []

                async def open_one(game: Game) -> None:
                    opened = asyncio.Event()
                    async with slots:
                        task = asyncio.create_task(follow(port, game, receipts, opened))
                        tasks.append(task)
                        waiter = asyncio.create_task(opened.wait())
                        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
                        waiter.cancel()
                        if task.done():
                            task.result()

                print(f"opening {args.streams} streams", flush=True)
                opening = [
                    asyncio.create_task(open_one(games[i % len(games)]))
                    for i in range(args.streams)
                ]
                started = time.monotonic()
                for done, opened in enumerate(asyncio.as_completed(opening), 1):
                    await opened
                    if done % 100 == 0 or done == args.streams:
                        print(f"  streams open: {done}/{args.streams}", flush=True)
                open_seconds = time.monotonic() - started
                await asyncio.sleep(2)  # the backlog (seq 2..) read, then idle
                rss_after = sum(server_rss(server.pid).values())

                print(f"write load with {args.streams} streams", flush=True)
                receipts.recording = True
                acked: dict[tuple[str, int], float] = {}
                with_count, with_lat = await write_load(
                    client, games, args.writers, args.seconds, acked, answered
                )
                await asyncio.sleep(2)  # the last fan-outs arrive
                receipts.recording = False
                ended_early = receipts.ended
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    per_stream = (rss_after - rss_before) / args.streams
    fan = receipts.latencies
    # The commit lies between the event's `at` and the writer's answer: receipt - answer
    # is a lower bound of commit -> receipt (negative: the stream heard it first).
    after_ack = [t - acked[g, q] for g, q, t in receipts.seen if (g, q) in acked]
    result = {
        "db": args.db,
        "processes": args.processes,
        "streams": args.streams,
        "games": args.games,
        "writers": args.writers,
        "seconds": args.seconds,
        "open_seconds": round(open_seconds, 1),
        "rss_before_kib": rss_before,
        "rss_after_kib": rss_after,
        "rss_per_stream_kib": round(per_stream, 1),
        "writes_per_s_without": round(base_count / args.seconds, 1),
        "writes_per_s_with": round(with_count / args.seconds, 1),
        "write_ratio_with_over_without": round(with_count / max(base_count, 1), 2),
        "write_p50_ms_without": round(percentile(base_lat, 0.5) * 1000, 1),
        "write_p99_ms_without": round(percentile(base_lat, 0.99) * 1000, 1),
        "write_p50_ms_with": round(percentile(with_lat, 0.5) * 1000, 1),
        "write_p99_ms_with": round(percentile(with_lat, 0.99) * 1000, 1),
        "events_received": len(fan),
        "events_expected": len(acked) * args.streams // args.games,  # logged writes
        "fanout_p50_ms": round(percentile(fan, 0.5) * 1000, 1),
        "fanout_p99_ms": round(percentile(fan, 0.99) * 1000, 1),
        "fanout_mean_ms": round(statistics.fmean(fan) * 1000, 1) if fan else None,
        "after_answer_p50_ms": round(percentile(after_ack, 0.5) * 1000, 1),
        "after_answer_p99_ms": round(percentile(after_ack, 0.99) * 1000, 1),
        "streams_ended_early": ended_early,
        "loadavg_after": machine()["loadavg"],
    }
    print(json.dumps(result, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--pg-server", default=DEFAULT_PG_SERVER)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--games", type=int, default=250)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--processes", type=int, choices=[1, 2], default=1, help="2: writes through another"
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
