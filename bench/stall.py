"""Every stored route against a frozen PostgreSQL, measured: figures for bench/STALL.md.

    python -m bench.stall                                  # every route, on and off, printed
    python -m bench.stall --routes read,faith --async on   # some of them
    python -m bench.stall --out bench/STALL.md             # the table, into the file

A private cluster (``initdb`` in a temporary folder, on a free port: never the shared
server) serves one ``python -m app`` with the settings' defaults, ``DB_ASYNC_READS`` on
then off. For each route, on a fresh game: its request alone, then 30 of it at once,
each time with the cluster frozen (SIGSTOP of the postmaster and its backends), then
resumed (SIGCONT) and waited for until the same process serves the game again. Each figure
is one request's time as the client saw it, and the answer's status.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.integration.support import PrivatePostgres
from tests.stall.freeze import fire, frozen, timed_call
from tests.stall.stall_support import Timed
from tests.stall.stored_routes import Call, StoredGame, new_game, stored_calls
from tests.support.servers import Server

BATCH = 30
CLIENT_TIMEOUT_S = 30.0


@dataclass
class Cell:
    route: str
    async_reads: bool
    shape: str  # "alone" or "30 at once"
    answers: list[Timed]
    recovered_s: float

    def statuses(self) -> str:
        counts: dict[str, int] = {}
        for answer in self.answers:
            label = "no answer" if answer.status is None else str(answer.status)
            if answer.status == 503 and answer.retry_after is None:
                label += " without Retry-After"
            counts[label] = counts.get(label, 0) + 1
        return ", ".join(f"{n} x {label}" if n > 1 else label for label, n in counts.items())

    def seconds(self) -> str:
        times = sorted(answer.seconds for answer in self.answers)
        if len(times) == 1:
            return f"{times[0]:.2f}"
        return f"{times[0]:.2f} / {statistics.median(times):.2f} / {times[-1]:.2f}"


def _client(base_url: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=base_url,
        timeout=httpx.Timeout(CLIENT_TIMEOUT_S, connect=5.0),
        limits=httpx.Limits(max_connections=2 * BATCH, max_keepalive_connections=2 * BATCH),
    )


async def _recovered(http: httpx.AsyncClient, game_url: str, auth: dict[str, str]) -> float:
    start = time.monotonic()
    while time.monotonic() - start < 60:
        ready = await http.get("/readyz")
        read = await http.get(game_url, headers=auth)
        if ready.status_code == 200 and read.status_code in (200, 404):
            return time.monotonic() - start
        await asyncio.sleep(0.1)
    raise AssertionError("the service did not recover within 60 s of SIGCONT")


async def _measure(
    base_url: str, cluster: PrivatePostgres, routes: list[str], async_reads: bool
) -> list[Cell]:
    cells = []
    async with _client(base_url) as http:
        for route in routes:
            for shape, count in (("alone", 1), (f"{BATCH} at once", BATCH)):
                game = await new_game(http)
                for _ in range(3):  # the pool warm, as in steady use
                    await http.get(game.url, headers=game.auth)
                # Each call of a batch carries its own Idempotency-Key.
                calls: list[Call] = [
                    next(c for c in stored_calls(game) if c.what == route) for _ in range(count)
                ]
                with frozen(cluster.data):
                    answers = (
                        await fire(http, calls) if count > 1 else [await timed_call(http, calls[0])]
                    )
                recovered = await _recovered(http, game.url, game.auth)
                cell = Cell(route, async_reads, shape, answers, recovered)
                print(
                    f"async {'on ' if async_reads else 'off'} {route:>14} {shape:>11}: "
                    f"{cell.statuses()} in {cell.seconds()} s (recovered in {recovered:.1f} s)",
                    flush=True,
                )
                cells.append(cell)
    return cells


def run(routes: list[str], modes: list[bool]) -> list[Cell]:
    cells: list[Cell] = []
    for async_reads in modes:
        cluster = PrivatePostgres()
        try:
            cluster.init()
            cluster.start()
            cluster.wait_accepting()
            with tempfile.TemporaryDirectory(prefix="vr-stall-bench-") as logs:
                server = Server(
                    cluster.url,
                    Path(logs),
                    "stall-bench",
                    env={"DB_ASYNC_READS": "true" if async_reads else "false"},
                ).start()
                try:
                    server.wait_ready()
                    cells += asyncio.run(_measure(server.base_url, cluster, routes, async_reads))
                finally:
                    server.stop()
        finally:
            cluster.cleanup()
    return cells


def table(cells: list[Cell]) -> list[str]:
    lines = [
        "| route | `DB_ASYNC_READS` | alone: answer, s | 30 at once: answers | "
        "30 at once: s (min / median / max) |",
        "| --- | --- | --- | --- | --- |",
    ]
    by_key = {(c.route, c.async_reads, c.shape): c for c in cells}
    for cell in cells:
        if cell.shape != "alone":
            continue
        batch = by_key[(cell.route, cell.async_reads, f"{BATCH} at once")]
        lines.append(
            f"| {cell.route} | {'on' if cell.async_reads else 'off'} | "
            f"{cell.statuses()} in {cell.seconds()} | {batch.statuses()} | {batch.seconds()} |"
        )
    return lines


def main() -> None:
    every = [call.what for call in stored_calls(_PLACEHOLDER)]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--routes", default=",".join(every), help=f"of: {', '.join(every)}")
    parser.add_argument("--async", dest="modes", default="on,off", help="on, off or on,off")
    parser.add_argument("--out", type=Path, help="replace the table of this file")
    args = parser.parse_args()
    routes = [r.strip() for r in args.routes.split(",") if r.strip()]
    unknown = sorted(set(routes) - set(every))
    if unknown:
        parser.error(f"unknown routes: {', '.join(unknown)}")
    modes = [mode.strip() == "on" for mode in args.modes.split(",")]
    load_before = os.getloadavg()
    cells = run(routes, modes)
    load_after = os.getloadavg()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Measured {now} by `python -m bench.stall`; load average before and after: "
        f"{load_before[0]:.1f}, {load_after[0]:.1f} (2 shared cores).",
        "",
        *table(cells),
    ]
    text = "\n".join(lines)
    print(text)
    if args.out is not None:
        _replace_table(args.out, text)


BEGIN, END = "<!-- bench/stall.py: begin -->", "<!-- bench/stall.py: end -->"


def _replace_table(path: Path, text: str) -> None:
    content = path.read_text()
    head, _, rest = content.partition(BEGIN)
    _, _, tail = rest.partition(END)
    if not rest:
        raise SystemExit(f"{path} has no {BEGIN} ... {END} block to replace")
    path.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")


_PLACEHOLDER = StoredGame("0" * 32, "token", "code", ["p1", "p2"])

if __name__ == "__main__":
    main()
