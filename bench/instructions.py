"""Instructions per request of one route, counted by valgrind (callgrind), in process.

    python -m bench.instructions final-scores          # 500 requests
    python -m bench.instructions healthz gains final-scores --requests 300

On a machine whose speed drifts, a few percent of wall clock is noise; an instruction
count is not: the same code, inputs and environment give the same count, whatever else
the machine is doing. The app is driven as an ASGI app (no server, no socket): the
script runs once with no measured request and once with N, each after the same warm-up,
and the difference over N is what one request costs. ``PYTHONHASHSEED`` is fixed. Needs
valgrind (Debian's package). A/B: run it on each commit (``git stash``, a worktree).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PAYLOADS = Path(__file__).resolve().parent / "payloads"
WARM_UP = 50
# What each route is sent: its path and body (None: a GET).
ROUTES: dict[str, tuple[str, str | None]] = {
    "healthz": ("/healthz", None),
    "gains": ("/v1/calculations/gains", "gains.json"),
    "final-scores": ("/v1/calculations/final-scores", "final_scores.json"),
}


def drive(route: str, requests: int) -> None:
    """Send ``WARM_UP`` then ``requests`` requests of ``route`` to the app, in process."""
    from app.main import create_app
    from app.settings import Settings

    path, payload = ROUTES[route]
    body = (PAYLOADS / payload).read_bytes() if payload else b""
    headers = [(b"host", b"bench"), (b"content-type", b"application/json")]
    if payload:
        headers.append((b"content-length", str(len(body)).encode()))
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST" if payload else "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite:///{folder}/bench.sqlite", log_level="warning")
        app = create_app(settings)

        async def one() -> int:
            messages = [{"type": "http.request", "body": body, "more_body": False}]
            status = []

            async def receive() -> dict[str, Any]:
                if messages:
                    return messages.pop()
                await asyncio.Event().wait()  # the client never disconnects
                return {}

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    status.append(message["status"])

            await app({**scope, "state": {}}, receive, send)
            return status[0]

        async def run() -> None:
            async with app.router.lifespan_context(app):
                for _ in range(WARM_UP):
                    if (status := await one()) != 200:
                        raise SystemExit(f"{route}: answered {status}")
                for _ in range(requests):
                    await one()

        asyncio.run(run())


def count(route: str, requests: int) -> int:
    """Instructions of the whole process driving ``requests`` requests of ``route``."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        "-m",
        "bench.instructions",
        "--drive",
        route,
        "--requests",
        str(requests),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no count from valgrind:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("routes", nargs="*", help=f"of {sorted(ROUTES)}; final-scores if none")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--drive", choices=sorted(ROUTES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        drive(args.drive, args.requests)
        return
    unknown = set(args.routes) - set(ROUTES)
    if unknown:
        parser.error(f"unknown routes {sorted(unknown)}; known: {sorted(ROUTES)}")
    for route in args.routes or ["final-scores"]:
        print(f"{route}: counting (two runs under valgrind, about a minute)...", flush=True)
        base = count(route, 0)
        total = count(route, args.requests)
        print(f"{route}: {(total - base) // args.requests:,} instructions per request", flush=True)


if __name__ == "__main__":
    main()
