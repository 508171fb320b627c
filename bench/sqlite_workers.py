"""Two processes on one SQLite file, each under reads and changes at once: what a change
pays when another worker of the same host holds the write lock.

    python -m bench.sqlite_workers                     # 3 rounds of 12 s
    python -m bench.sqlite_workers --seconds 20 --rounds 5

Two ``python -m app`` (one worker each, so that each gets the same load; ``--workers 2``
splits connections between its workers as the kernel pleases) share a new SQLite file with
1,000 games seeded through the API. Each is sent wrk ``put_faith.lua`` at ``--put``
connections and ``get_game.lua`` at ``--get`` at once. Printed per round: both servers'
changes and reads (req/s summed, the worse p50 and p99 of the two), and what their
``/metrics`` count of changes paused on the loop for the lock
(``sqlite_lock_pauses_total``) and run again on a request thread
(``changes_run_again_on_a_thread_total``). For an A/B, run it from a worktree of each
commit with ``PYTHONPATH`` set to that worktree, rounds alternating.
"""

from __future__ import annotations

import argparse
import re
import threading
import urllib.request
from contextlib import ExitStack

from bench.harness import (
    DEFAULT_PG_SERVER,
    WrkResult,
    app_command,
    fresh_database,
    require_wrk,
    run_wrk,
    serve,
    workdir,
)
from bench.scenarios import BY_NAME
from bench.seeding import seed
from tests.support.servers import Launched, free_port

COUNTED = ("sqlite_lock_pauses_total", "changes_run_again_on_a_thread_total")


def one_round(seconds: float, put_connections: int, get_connections: int) -> str:
    put, get = BY_NAME["put-faith"], BY_NAME["get-game"]
    tmp = workdir()
    with fresh_database("sqlite", DEFAULT_PG_SERVER, tmp) as url, ExitStack() as stack:
        servers: list[Launched] = []
        for name in ("one", "two"):
            port = free_port()
            command = app_command(port, 1)
            env = {"DATABASE_URL": url, "LOG_LEVEL": "warning"}
            servers.append(stack.enter_context(serve(command, env, port, tmp / f"{name}.log")))
        seed(servers[0].base_url, 1000, False, "games", tmp / "games.lua")
        files = {"threads": "1", "games": str(tmp / "games.lua")}
        results: dict[tuple[str, int], WrkResult] = {}

        def load(kind: str, index: int, connections: int) -> None:
            scenario = put if kind == "put" else get
            args = [a.format(**files) for a in scenario.load.args]
            base_url = servers[index].base_url
            results[kind, index] = run_wrk(
                base_url, scenario.load.script, args, connections, seconds
            )

        loads = [
            threading.Thread(target=load, args=(kind, index, connections))
            for index in (0, 1)
            for kind, connections in (("put", put_connections), ("get", get_connections))
        ]
        for thread in loads:
            thread.start()
        for thread in loads:
            thread.join()
        counts = dict.fromkeys(COUNTED, 0.0)
        for server in servers:
            metrics = urllib.request.urlopen(f"{server.base_url}/metrics").read().decode()
            for name, value in re.findall(rf"^({'|'.join(COUNTED)}) (\S+)$", metrics, re.M):
                counts[name] += float(value)
    line = []
    for kind in ("put", "get"):
        both = [results[kind, 0], results[kind, 1]]
        line.append(
            f"{kind} {sum(r.rps for r in both):,.0f} req/s, p50 "
            f"{max(r.p50_ms for r in both):.1f} ms, p99 {max(r.p99_ms for r in both):.1f} ms"
        )
    line.append(", ".join(f"{name} {value:,.0f}" for name, value in counts.items()))
    return " | ".join(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=12.0, help="of each round's load")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--put", type=int, default=4, help="connections changing, per server")
    parser.add_argument("--get", type=int, default=16, help="connections reading, per server")
    args = parser.parse_args()
    require_wrk()
    for number in range(1, args.rounds + 1):
        print(f"round {number}/{args.rounds}: ", end="", flush=True)
        print(one_round(args.seconds, args.put, args.get), flush=True)


if __name__ == "__main__":
    main()
