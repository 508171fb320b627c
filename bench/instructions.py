"""Instructions per request of one route, counted by valgrind (callgrind), in process.

    python -m bench.instructions final-scores          # 500 requests
    python -m bench.instructions healthz gains final-scores --requests 300
    python -m bench.instructions put-faith --db postgres   # the service's process only
    python -m bench.instructions put-faith --games 1 --requests 1000   # one game's 1,050 changes

On a machine whose speed drifts, a few percent of wall clock is noise; an instruction
count is not: the same code, inputs and environment give the same count, whatever else
the machine is doing. The app is driven as an ASGI app (no server, no socket): the
script runs once with no measured request and once with N, each after the same warm-up,
and the difference over N is what one request costs. ``PYTHONHASHSEED`` is fixed. On
PostgreSQL the count is the service's process (its driver included), not the server's. Needs
valgrind (Debian's package). A/B: ``--checkout`` a worktree of the other commit (same virtualenv).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PAYLOADS = Path(__file__).resolve().parent / "payloads"
WARM_UP = 50
# Read once: the driver's own work per request counts in the process's instructions too.
GAINS = (PAYLOADS / "gains.json").read_bytes()
FINAL_SCORES = (PAYLOADS / "final_scores.json").read_bytes()
CREATE_GAME = (PAYLOADS / "create_game.json").read_bytes()
# What each route is sent: method, path ("{game}": one of the games made at start-up), the
# body of the i-th request of a run over so many games (None: no body) and more headers.
# Stored routes get the host's bearer token.
Route = tuple[str, str, Callable[[int, int], bytes] | None, tuple[tuple[bytes, bytes], ...]]
ROUTES: dict[str, Route] = {
    "healthz": ("GET", "/healthz", None, ()),
    "faith-track": ("GET", "/v1/faith-track", None, ()),
    "tile": ("GET", "/v1/excommunication-tiles/I-1", None, ()),
    "gains": (
        "POST",
        "/v1/calculations/gains",
        lambda i, games: GAINS,
        (),
    ),
    "final-scores": (
        "POST",
        "/v1/calculations/final-scores",
        lambda i, games: FINAL_SCORES,
        (),
    ),
    "create-game": ("POST", "/v1/games", lambda i, games: CREATE_GAME, ()),
    "get-game": ("GET", "/v1/games/{game}", None, ()),
    # Games made and not changed are at version 1.
    "get-game-304": ("GET", "/v1/games/{game}", None, ((b"if-none-match", b'"1"'),)),
    # A game's Faith alternates, so that every request logs a change: the i-th request
    # goes to game i % games, whose n-th request is the i // games-th.
    "put-faith": (
        "PUT",
        "/v1/games/{game}/players/p1/faith",
        lambda i, games: b'{"faith": %d}' % (3 + (i // games) % 2),
        (),
    ),
}
# Stored routes take turns over this many games, made at start-up: a game's state grows
# with each change it logs, so that one game changed a few hundred times would measure a
# game no table plays (a real one logs a few dozen); ``--games 1`` measures just that.
GAMES = 40
# Stored routes run with no rate limit and room in a game's log for every change it gets.
# No retention sweep: its first comes at a random point of its interval, on a clock, so a
# count that ran long (valgrind on a busy machine) would hold one sweep's work or none.
UNLIMITED: dict[str, Any] = {
    "game_write_rate": 0,
    "game_creation_rate": 0,
    "max_events_per_game": 100_000,
    "retention_sweep_seconds": 0,
}


def drive(
    route: str, requests: int, url: str | None, access_log: bool = False, games: int = GAMES
) -> None:
    """Send ``WARM_UP`` then ``requests`` requests of ``route`` to the app, in process, on
    the database at ``url`` (a new SQLite file if None); with ``access_log``, each request
    is logged as the served process logs it (to stdout, which the counter discards)."""
    from app.main import create_app
    from app.persistence.migrate import upgrade
    from app.settings import Settings

    method, path, payload, more_headers = ROUTES[route]
    if access_log:
        import logging.config

        from app.__main__ import log_config

        logging.config.dictConfig(log_config("INFO"))

    def scope(method: str, path: str, body: bytes, token: str | None) -> dict[str, Any]:
        headers = [(b"host", b"bench"), (b"content-type", b"application/json")]
        headers += more_headers
        if body:
            headers.append((b"content-length", str(len(body)).encode()))
        if token:
            headers.append((b"authorization", f"Bearer {token}".encode()))
        return {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
            "state": {},
        }

    with tempfile.TemporaryDirectory() as folder:
        url = url or f"sqlite:///{folder}/bench.sqlite"
        upgrade(url)
        settings = Settings(database_url=url, log_level="warning", **UNLIMITED)
        app = create_app(settings)

        async def one(scope: dict[str, Any], body: bytes) -> tuple[int, bytes]:
            messages = [{"type": "http.request", "body": body, "more_body": False}]
            status, sent = [], []

            async def receive() -> dict[str, Any]:
                if messages:
                    return messages.pop()
                await asyncio.Event().wait()  # the client never disconnects
                return {}

            async def send(message: MutableMapping[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    status.append(message["status"])
                elif message["type"] == "http.response.body":
                    sent.append(message.get("body", b""))

            await app(scope, receive, send)
            return status[0], b"".join(sent)

        async def run() -> None:
            async with app.router.lifespan_context(app):
                targets: list[tuple[str | None, str]] = [(None, path)]
                made: list[tuple[str, str]] = []  # each game's host token and id
                if "{game}" in path:
                    for _ in range(games):
                        request = scope("POST", "/v1/games", CREATE_GAME, None)
                        status, answer = await one(request, CREATE_GAME)
                        if status != 201:
                            raise SystemExit(f"creating a game answered {status}")
                        game = json.loads(answer)
                        made.append((game["host_token"], game["game"]["id"]))
                    targets = [(token, path.format(game=game_id)) for token, game_id in made]
                for i in range(WARM_UP + requests):
                    body = payload(i, games) if payload else b""
                    token, target = targets[i % len(targets)]
                    status, _ = await one(scope(method, target, body, token), body)
                    if i < WARM_UP and status not in (200, 201, 304):
                        raise SystemExit(f"{route}: answered {status}")
                if method == "PUT":  # what is counted is a change, not a PUT of no change
                    token, game_id = made[0]
                    read = scope("GET", f"/v1/games/{game_id}", b"", token)
                    status, answer = await one(read, b"")
                    changes = json.loads(answer)["version"] - 1
                    if changes < (WARM_UP + requests) // len(targets):
                        raise SystemExit(f"{route}: {changes} changes logged")

        asyncio.run(run())


def count(
    route: str,
    requests: int,
    checkout: Path,
    db: str,
    pg_server: str | None,
    access_log: bool = False,
    games: int = GAMES,
) -> int:
    """Instructions of the whole process driving ``requests`` requests of ``route`` to
    the app of ``checkout`` (this script, run by its path, imports ``app`` from there),
    on a new database of kind ``db``."""
    more = ["--access-log"] if access_log else []
    more += ["--games", str(games)]
    if db == "postgres":
        # Imported here: the driver, run under valgrind, imports nothing it does not measure.
        from bench.harness import DEFAULT_PG_SERVER, fresh_database

        server = pg_server or DEFAULT_PG_SERVER
        with fresh_database(db, server, Path(tempfile.gettempdir())) as url:
            return _count(route, requests, checkout, ["--url", url, *more])
    return _count(route, requests, checkout, more)


#: A Python process counted by callgrind, its profile thrown away: only the total is read.
VALGRIND = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]


def collected(stderr: str, what: str) -> int:
    """The instructions valgrind says it counted, from its ``stderr``."""
    found = re.search(r"Collected : (\d+)", stderr)
    if found is None:
        raise SystemExit(f"no count from valgrind for {what}:\n{stderr[-2000:]}")
    return int(found.group(1))


def _count(route: str, requests: int, checkout: Path, more: list[str]) -> int:
    command = [
        *VALGRIND,
        sys.executable,
        str(Path(__file__).resolve()),
        "--drive",
        route,
        "--requests",
        str(requests),
        *more,
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=checkout
    )
    if done.returncode:
        raise SystemExit(f"{route} failed on {checkout}:\n{done.stderr[-2000:]}")
    return collected(done.stderr, route)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("routes", nargs="*", help=f"of {sorted(ROUTES)}; final-scores if none")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument(
        "--checkout",
        type=Path,
        default=REPO,
        help="the project whose app is measured (A/B: a worktree of the other commit)",
    )
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--pg-server", help="default: bench/harness.py's")
    parser.add_argument("--drive", choices=sorted(ROUTES), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument(
        "--access-log", action="store_true", help="log each request as the served process does"
    )
    parser.add_argument(
        "--games", type=int, default=GAMES, help="stored routes take turns over this many games"
    )
    args = parser.parse_args()
    if args.drive:
        drive(args.drive, args.requests, args.url, args.access_log, args.games)
        return
    unknown = set(args.routes) - set(ROUTES)
    if unknown:
        parser.error(f"unknown routes {sorted(unknown)}; known: {sorted(ROUTES)}")
    for route in args.routes or ["final-scores"]:
        print(f"{route}: counting (two runs under valgrind, about a minute)...", flush=True)
        where = (args.checkout, args.db, args.pg_server, args.access_log, args.games)
        base = count(route, 0, *where)
        total = count(route, args.requests, *where)
        print(f"{route}: {(total - base) // args.requests:,} instructions per request", flush=True)


if __name__ == "__main__":
    main()
