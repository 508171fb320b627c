"""What the stack costs before the service's own code: instructions per request of a whole
uvicorn server process (httptools, uvloop, no access log: the ceilings' settings,
``bench/ceilings/serve.py``) answering ``GET /healthz`` with the same 15-byte JSON body, for
a plain ASGI function, a Starlette route, a FastAPI route and the service itself; then the
service as ``python -m app`` serves it ("served": its edge protocol and its access log on,
written to a discarded stdout), so that the difference from "service" is what those cost;
"served-plain" is "served" on uvicorn's own httptools protocol: "served" less it is what
the edge protocol alone costs.

    python -m bench.stack_floor                     # every app, 500 requests each
    python -m bench.stack_floor asgi fastapi --requests 1000
    python -m bench.stack_floor asgi served --loop asyncio   # every app on that loop

At 64 connections a worker is bound by its CPU, so the ratio of two apps' instructions per
request is about the inverse of the ratio of their requests per second: this says how
near the ceilings (``bare`` is the first app's stack) a route could come on FastAPI at all,
whatever the service does. Counted by valgrind (callgrind), immune to a shared machine's
noise; each server is run twice (a few requests, then as many more as asked) and the
difference is what the asked requests cost. Needs valgrind (Debian's package).
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, get_args

from app.settings import EventLoop
from bench.instructions import VALGRIND, collected

REPO = Path(__file__).resolve().parent.parent
BODY = b'{"status":"ok"}'
WARM_UP = 20
APPS = ("asgi", "starlette", "fastapi", "fastapi-no-otel", "service", "served", "served-plain")


def build(name: str) -> Any:
    """The ASGI app ``name``, made as its framework's documentation makes one."""
    if name == "asgi":

        async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "lifespan":
                await receive()  # startup
                await send({"type": "lifespan.startup.complete"})
                await receive()  # shutdown
                await send({"type": "lifespan.shutdown.complete"})
                return
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": BODY})

        return asgi
    if name == "starlette":
        from starlette.applications import Starlette
        from starlette.responses import Response
        from starlette.routing import Route

        async def starlette_health(request: Any) -> Response:
            return Response(BODY, media_type="application/json")

        return Starlette(routes=[Route("/healthz", starlette_health)])
    if name in ("fastapi", "fastapi-no-otel"):
        from fastapi import FastAPI, Response
        from fastapi.telemetry import TelemetryConfig

        off: TelemetryConfig = {
            "tracing": False,
            "metrics": False,
            "logs": False,
            "operation_spans": False,
        }
        app = FastAPI(telemetry=off if name == "fastapi-no-otel" else None)

        @app.get("/healthz")
        async def health() -> Response:
            return Response(BODY, media_type="application/json")

        return app
    if name == "service":
        from app.main import create_app
        from app.persistence.migrate import upgrade
        from app.settings import Settings

        url = f"sqlite:///{tempfile.mkdtemp()}/floor.sqlite"
        upgrade(url)
        return create_app(Settings(database_url=url, log_level="warning"))
    raise SystemExit(f"unknown app {name!r}; known: {', '.join(APPS)}")


def serve(name: str, port: int, loop: str) -> None:
    if name in ("served", "served-plain"):
        # On the service's EVENT_LOOP, which count() sets.
        serve_as_python_m_app(port, edge=name == "served")
        return
    serve_as_the_ceilings(build(name), port, loop=loop)


def serve_as_python_m_app(port: int, edge: bool = True) -> None:
    """The service on 127.0.0.1:``port`` as ``python -m app`` serves it (one worker), on a
    new SQLite file, with the access log at INFO; without ``edge``, on uvicorn's own
    httptools protocol instead of the edge's bounded one (the same options otherwise:
    the difference is what the edge's bounds and its one-write answers cost)."""
    from app.persistence.migrate import upgrade
    from app.settings import Settings
    from bench.serve_variant import serve_variant

    url = f"sqlite:///{tempfile.mkdtemp()}/floor.sqlite"
    upgrade(url)
    # app.main:app, which the server imports, reads its settings from the environment.
    os.environ.update(DATABASE_URL=url, LOG_LEVEL="info")
    settings = Settings(database_url=url, log_level="info")
    if edge:
        serve_variant(settings, port, 1, "baseline")
        return
    # The served options that uvicorn's defaults differ from (app/server/serve.py).
    keep_alive = max(1, round(settings.keepalive_timeout_seconds))
    serve_variant(
        settings,
        port,
        1,
        "plain-httptools",
        proxy_headers=False,
        timeout_keep_alive=keep_alive,
    )


def serve_as_the_ceilings(
    app: Any, port: int, http: Any = "httptools", loop: str = "uvloop"
) -> None:
    """``app`` on 127.0.0.1:``port`` with the options of ``bench/ceilings/serve.py`` (which
    is frozen, so they are repeated here rather than shared); ``http`` another protocol
    class, ``loop`` another event loop, for an experiment (``bench/one_write.py``,
    ``bench/tail_check.py``)."""
    import uvicorn

    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        http=http,
        loop=loop,
        workers=1,
        access_log=False,
        proxy_headers=False,
        timeout_keep_alive=5,
        log_level="warning",
        lifespan="on",
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _send(port: int, requests: int) -> None:
    """``requests`` GETs on one kept-alive connection, once the server answers."""
    deadline = time.monotonic() + 120  # a server under valgrind starts slowly
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.connect()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("the server never listened") from None
            time.sleep(0.5)
    for _ in range(requests):
        connection.request("GET", "/healthz")
        answer = connection.getresponse()
        if answer.status != 200:
            raise SystemExit(f"/healthz answered {answer.status}")
        answer.read()
    connection.close()


def count(name: str, requests: int, loop: str | None = None) -> int:
    """Instructions of the server process of ``name`` serving ``requests`` requests (and
    its start and stop), on ``loop``: None is the ceilings' (uvloop) for a plain app and
    the service's ``EVENT_LOOP`` for "served" and "served-plain"."""
    port = _free_port()
    command = [
        *VALGRIND,
        sys.executable,
        str(Path(__file__).resolve()),
        "--serve",
        name,
        str(port),
        "--loop",
        loop or "uvloop",
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(REPO)}
    if loop is not None:
        env["EVENT_LOOP"] = loop
    server = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO
    )
    try:
        _send(port, requests)
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=120)
    return collected(stderr, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("apps", nargs="*", help=f"of {', '.join(APPS)}; all if none")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument(
        "--loop",
        choices=get_args(EventLoop),
        help="serve every app on this event loop (default: the ceilings' uvloop for the "
        "plain apps, the service's EVENT_LOOP for served)",
    )
    parser.add_argument("--serve", nargs=2, metavar=("APP", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.loop or "uvloop")
        return
    unknown = set(args.apps) - set(APPS)
    if unknown:
        parser.error(f"unknown apps {sorted(unknown)}; known: {', '.join(APPS)}")
    results: dict[str, int] = {}
    for name in args.apps or APPS:
        print(f"{name}: counting (two servers under valgrind, a minute or two)...", flush=True)
        base = count(name, WARM_UP, args.loop)
        total = count(name, WARM_UP + args.requests, args.loop)
        results[name] = (total - base) // args.requests
        print(f"{name}: {results[name]:,} instructions per request", flush=True)
    first = next(iter(results.values()))
    print("\n| app | instructions per request | of the first's rate |\n|---|---:|---:|")
    for name, per_request in results.items():
        print(f"| {name} | {per_request:,} | {first / per_request:.0%} |")


if __name__ == "__main__":
    main()
