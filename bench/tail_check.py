"""Whose tail is a p99 at 64 connections: the service's, its event loop's, or the machine's?

    python -m bench.tail_check                      # 3 rounds of 5 s, 150 us a request
    python -m bench.tail_check --rounds 5 --spin-us 120

Serves in turn, one round after the other, the service's ``/healthz`` (``python -m app``'s
server: the edge protocol, the access log) and a reference: a plain ASGI app on the
ceilings' settings (``bench/ceilings/serve.py``) that spends ``--spin-us`` of CPU on each
request, about what the service spends, and answers the same 15 bytes; each on uvloop and
on the standard library's event loop (the reference through uvicorn's ``loop`` option,
the service through its ``EVENT_LOOP``). wrk loads each at 64 connections
(``bench/lua/get.lua``: p50, p99, p99.9, max). Every app watches its own event loop: a
task that sleeps 1 ms and counts how late it wakes, so that a tail the loop never saw (no
lag as long as the tail) is not the app's code. ``bench/RESULTS.md`` says what it showed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import REPO, serve, wrk_summary
from bench.stack_floor import build, serve_as_the_ceilings
from tests.support.servers import free_port

SLOW_WAKE_MS = 20.0  # a loop lag counted as one a request could wait behind
# Each app and the event loop it is served on.
APPS = {
    "reference uvloop": "uvloop",
    "reference asyncio": "asyncio",
    "service uvloop": "uvloop",
    "service asyncio": "asyncio",
}


class LoopWatched:
    """An ASGI app that, from its lifespan's start, measures how late its event loop runs
    a 1 ms sleep and writes what it saw to ``TAIL_LAG_FILE`` every second."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            asyncio.get_running_loop().create_task(_watch(Path(os.environ["TAIL_LAG_FILE"])))
        await self.app(scope, receive, send)


async def _watch(path: Path) -> None:
    samples = slow = 0
    worst = 0.0
    written = time.monotonic()
    while True:
        asleep = time.perf_counter()
        await asyncio.sleep(0.001)
        lag_ms = (time.perf_counter() - asleep) * 1000 - 1.0
        samples += 1
        slow += lag_ms > SLOW_WAKE_MS
        worst = max(worst, lag_ms)
        if time.monotonic() - written >= 1.0:
            written = time.monotonic()
            path.write_text(json.dumps({"samples": samples, "slow": slow, "worst_ms": worst}))


class Spinning:
    """The reference: stack_floor's plain ASGI app, after ``TAIL_SPIN_US`` of CPU spent on
    each request."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.spin_s = float(os.environ["TAIL_SPIN_US"]) / 1e6

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            until = time.perf_counter() + self.spin_s
            while time.perf_counter() < until:
                pass
        await self.app(scope, receive, send)


def __getattr__(name: str) -> Any:
    # The service as uvicorn imports it in the server process only ("bench.tail_check:
    # watched_service"): importing this module to drive the runs builds no app.
    if name == "watched_service":
        from app.main import app

        return LoopWatched(app)
    raise AttributeError(name)


def _serve(name: str, port: int) -> None:
    if name.startswith("reference"):
        serve_as_the_ceilings(LoopWatched(Spinning(build("asgi"))), port, loop=APPS[name])
        return
    from app.__main__ import log_config
    from app.persistence.migrate import upgrade
    from app.server.serve import serve as serve_app
    from app.settings import get_settings

    settings = get_settings()
    upgrade(settings.database_url)
    serve_app(
        settings,
        host="127.0.0.1",
        port=port,
        workers=1,
        log_config=log_config(settings.log_level.upper()),
        target="bench.tail_check:watched_service",
    )


def measure(name: str, seconds: int, spin_us: float, folder: Path) -> dict[str, Any]:
    """One app served, warmed for 2 s, then loaded for ``seconds``."""
    port = free_port()
    slug = name.replace(" ", "-")
    lag_file = folder / f"{slug}-lag.json"
    lag_file.unlink(missing_ok=True)
    env = {
        "TAIL_LAG_FILE": str(lag_file),
        "TAIL_SPIN_US": str(spin_us),
        "DATABASE_URL": f"sqlite:///{folder}/tail.sqlite",
        "PYTHONPATH": str(REPO),
        "EVENT_LOOP": APPS[name],  # the service's; the reference's is its serve's option
    }
    command = [sys.executable, "-m", "bench.tail_check", "--serve", name, str(port)]
    with serve(command, env, port, folder / f"{slug}.log", ready_path="/healthz"):
        url = f"http://127.0.0.1:{port}"
        wrk_summary(url, "get.lua", ["/healthz"], 64, 2)
        result = wrk_summary(url, "get.lua", ["/healthz"], 64, seconds)
        time.sleep(1.2)  # the watcher's next write covers the whole load
    lag = json.loads(lag_file.read_text())
    return {"app": name, **result, **lag}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--spin-us", type=float, default=150.0, help="the reference's CPU")
    parser.add_argument("--serve", nargs=2, metavar=("APP", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve[0], int(args.serve[1]))
        return
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for round_number in range(1, args.rounds + 1):
            for name in APPS:
                print(f"round {round_number}/{args.rounds}: {name}...", flush=True)
                rows.append((round_number, measure(name, args.seconds, args.spin_us, Path(folder))))
    print(
        f"\n64 connections, {args.seconds} s each; reference: {args.spin_us:g} us of CPU a "
        "request\n\n| round | app | req/s | p50 ms | p99 ms | p99.9 ms | max ms "
        f"| loop wakes > {SLOW_WAKE_MS:g} ms late | latest wake ms |\n|---|---|" + "---:|" * 7
    )
    for round_number, row in rows:
        rate = row["requests"] / (row["duration_us"] / 1e6)
        times = [row[k] / 1000 for k in ("p50_us", "p99_us", "p999_us", "max_us")]
        print(
            f"| {round_number} | {row['app']} | {rate:,.0f} | "
            + " | ".join(f"{t:.1f}" for t in times)
            + f" | {row['slow']} of {row['samples']:,} | {row['worst_ms']:.1f} |"
        )


if __name__ == "__main__":
    main()
