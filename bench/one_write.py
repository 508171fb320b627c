"""An answer in one write or two, on a bare app: what ``OneWriteAnswer`` (the edge
protocol's, ``app/server/uvicorn_internals.py``) changes when nothing else does.

    python -m bench.one_write                       # 1, 8 and 64 connections, 3 rounds
    python -m bench.one_write --connections 1 --pin same

Two servers of a plain ASGI app answering ``--bytes`` of JSON with their length declared
(as the service's answers are; a game's document is about 1,700 bytes), served with the
ceilings' options: uvicorn's own
httptools protocol (two writes an answer: its head, then its body), and the same protocol
whose cycles write through ``OneWriteAnswer`` (one write). Each cell is wrk on one of
them, the two in turn in every round, with the server's CPU per request (user and
system, ``/proc``). ``--pin same`` runs both servers and wrk on one core, ``--pin apart``
the servers on one and wrk on the other: where the client wakes decides what one
connection measures (bench/RESULTS.md, "An answer in one write").
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import REPO, cpu_seconds, serve, wrk_summary
from bench.stack_floor import build, serve_as_the_ceilings
from tests.support.servers import free_port

VARIANTS = ("two-writes", "one-write")
# The cores of each --pin: (the servers', wrk's).
PINS = {"same": ({0}, {0}), "apart": ({0}, {1})}


def _one_write_protocol() -> type:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from app.server.uvicorn_internals import answer_in_one_write

    class OneWriteHttpTools(HttpToolsProtocol):
        """uvicorn's protocol with the edge's one-write answers and nothing else of it."""

        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            answer_in_one_write(self)

    return OneWriteHttpTools


def _answering(size: int) -> Any:
    body = b'{"pad":"' + b"x" * max(0, size - 10) + b'"}'
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))],
    }
    answer = {"type": "http.response.body", "body": body}
    plain = build("asgi")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # the lifespan, as stack_floor's plain app answers it
            await plain(scope, receive, send)
            return
        await send(start)
        await send(answer)

    return app


def _serve(variant: str, port: int, size: int) -> None:
    http: Any = "httptools" if variant == "two-writes" else _one_write_protocol()
    serve_as_the_ceilings(_answering(size), port, http=http)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", default="1,8,64")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--pin", choices=sorted(PINS), help="cores for the servers and wrk")
    parser.add_argument("--bytes", type=int, default=1700, help="the answer's body")
    parser.add_argument("--serve", nargs=2, metavar=("VARIANT", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve[0], int(args.serve[1]), args.bytes)
        return
    if args.pin:
        os.sched_setaffinity(0, PINS[args.pin][0])  # the servers inherit it...
    connections = [int(c) for c in args.connections.split(",")]
    rows: list[tuple[int, str, int, float, float, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        for round_number in range(1, args.rounds + 1):
            for variant in VARIANTS:
                port = free_port()
                command = [sys.executable, "-m", "bench.one_write", "--serve", variant, str(port)]
                command += ["--bytes", str(args.bytes)]
                log = Path(folder) / f"{variant}.log"
                env = {"PYTHONPATH": str(REPO)}
                with serve(command, env, port, log, ready_path="/") as server:
                    if args.pin:
                        os.sched_setaffinity(0, PINS[args.pin][1])  # ...wrk gets its own
                    for count in connections:
                        wrk_summary(server.base_url, "get.lua", ["/"], count, 1)  # warm-up
                        user, system = cpu_seconds(server.pid)
                        done = wrk_summary(server.base_url, "get.lua", ["/"], count, args.seconds)
                        user_after, system_after = cpu_seconds(server.pid)
                        requests = max(1, done["requests"])
                        rate = requests / (done["duration_us"] / 1e6)
                        cpu_us = (user_after - user + system_after - system) / requests * 1e6
                        system_us = (system_after - system) / requests * 1e6
                        rows.append((round_number, variant, count, rate, cpu_us, system_us))
                        print(
                            f"round {round_number}/{args.rounds} {variant:>10} c={count:<3} "
                            f"{rate:8,.0f} req/s  server CPU {cpu_us:5.1f} us/request "
                            f"(system {system_us:4.1f})",
                            flush=True,
                        )
                    if args.pin:
                        os.sched_setaffinity(0, PINS[args.pin][0])
    print("\n| connections | variant | req/s (each round) | server CPU us/request | of it system |")
    print("|---:|---|---|---|---|")
    for count in connections:
        for variant in VARIANTS:
            mine = [r for r in rows if r[1] == variant and r[2] == count]
            print(
                f"| {count} | {variant} | "
                + ", ".join(f"{r[3]:,.0f}" for r in mine)
                + " | "
                + ", ".join(f"{r[4]:.1f}" for r in mine)
                + " | "
                + ", ".join(f"{r[5]:.1f}" for r in mine)
                + " |"
            )


if __name__ == "__main__":
    main()
