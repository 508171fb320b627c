"""Load benchmark of the service against frozen ceilings and a peer, driven by wrk.

    python -m bench.run                      # 10 s per cell, 1 and 64 connections, both DBs
    python -m bench.run --duration 5 --interleave 3   # short, each ratio in three slices
    python -m bench.run --db sqlite --connections 64 --scenarios healthz,get-game
    python -m bench.run --soak 120           # then 120 s of mixed traffic, sampling RSS
    python -m bench.run --in-app             # + the in-app probe routes (bench/in_app.py)

Per database kind: a fresh database; the service as ``python -m app`` serves it; games
seeded through the API; one request of every scenario probed (status, headers, body
length), handed to the ceilings of ``bench/ceilings/`` (standalone ASGI apps, none of the
service's code, the same uvicorn settings), which answer the same bytes; then one cell
per (scenario, connections): the scenario's requests against the service and the same
requests against each of its references, each a wrk run, with one line of progress per
cell. A reference is a ceiling (``bare``: no database; ``bare-read``: one indexed SELECT;
``bare-write``: one UPDATE) or the peer, boardgame.io's server (``bench/peer.py``),
which answers requests of its own for the same operation.

``--interleave N`` measures a cell as N rounds of (each reference, then the scenario), a
slice of duration/N each, so that on a machine whose speed drifts or flips (a shared
host) both sides of a ratio see the same machine; without it a cell is one round of full
runs. The latencies of a sliced cell are the median of its slices' p50 and the highest
p99, and its p99 is not a steady-state one: each slice begins with all its connections
opening at once (``bench/goals.py`` reads p99 from unsliced cells only). resolve-report and
peer-join are never sliced (a new wrk run would start their pools of fresh games or seats
over): their references run once, just before them.
"""

from __future__ import annotations

import argparse
import json
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import peer
from bench.cells import Cell, ready_games, run_cell, table
from bench.database_run import bench_database, peer_server
from bench.harness import DEFAULT_PG_SERVER, machine, require_wrk, workdir
from bench.probes import probe
from bench.scenarios import BY_NAME, DEFAULT, SCENARIOS, Data
from tests.support.servers import Launched

# What --quick sets where the command line does not (3 s cells, fewer games).
QUICK = {
    "duration": 3.0,
    "games": 1000,
    "decide_games": 300,
    "resolve_games": 1500,
    "peer_matches": 300,
    "peer_join_matches": 1000,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per cell side")
    parser.add_argument("--connections", default="1,64", help="comma list, default 1,64")
    parser.add_argument("--db", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument("--scenarios", default=",".join(DEFAULT), help="comma list")
    parser.add_argument("--in-app", action="store_true", help="+ the in-app probe routes")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn workers")
    parser.add_argument("--games", type=int, default=10000, help="games read and written")
    parser.add_argument("--decide-games", type=int, default=2000, help="games of put-decision")
    parser.add_argument(
        "--resolve-games", type=int, default=12000, help="fresh games per resolve-report cell"
    )
    parser.add_argument("--peer-matches", type=int, default=1000, help="boardgame.io matches")
    parser.add_argument(
        "--peer-join-matches", type=int, default=3000, help="open matches per peer-join cell"
    )
    parser.add_argument("--rows", type=int, default=10000, help="rows of --in-app txn-ceiling")
    parser.add_argument("--log-level", default="info", help="LOG_LEVEL of the server")
    parser.add_argument("--soak", type=int, default=0, help="seconds of mixed traffic (RSS)")
    parser.add_argument("--pg-server", default=DEFAULT_PG_SERVER, help="admin URL")
    parser.add_argument("--quick", action="store_true", help="3 s cells, fewer games, unless given")
    parser.add_argument("--json", type=Path, help="also write the cells as JSON here")
    parser.add_argument(
        "--interleave",
        type=int,
        default=0,
        help="measure each cell in N rounds alternating with its references (see above)",
    )
    args = parser.parse_args()
    if args.quick:
        # Shorter cells and fewer games, except where the command line names a value.
        for name, quick in QUICK.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, quick)
    args.connections = [int(c) for c in args.connections.split(",")]
    names = [s.strip() for s in args.scenarios.split(",")]
    if args.in_app:
        names += [s.name for s in SCENARIOS if s.in_app and s.name not in names]
    unknown = [s for s in names if s not in BY_NAME]
    if unknown:
        parser.error(f"unknown scenarios {unknown}; known: {', '.join(BY_NAME)}")
    if args.games < 10000:
        print(
            f"note: reads and writes spread over {args.games} games, not a run to record (10,000)"
        )
    wanted = [s for s in SCENARIOS if s.name in names]
    require_wrk()

    info = machine()
    print(" ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    tmp = workdir()
    cells: list[Cell] = []
    soaks: list[dict[str, Any]] = []
    data = Data()
    files: dict[str, str] = {"threads": "1"}
    with ExitStack() as stack:
        servers: dict[str, Launched] = {}
        if any(s.server == "peer" or any(r.server == "peer" for r in s.against) for s in wanted):
            print("[peer] boardgame.io", flush=True)
            servers["peer"] = stack.enter_context(peer_server(tmp))
            matches = tmp / "peer-matches.lua"
            data.peer_matches = peer.seed(
                servers["peer"].base_url, args.peer_matches, True, matches
            )
            files["peer"] = str(matches)
        for db in args.db.split(","):
            db_cells, soak = bench_database(db.strip(), wanted, args, tmp, servers, data, files)
            cells += db_cells
            if soak:
                soaks.append(soak)
        for scenario in (s for s in wanted if s.server == "peer"):
            if servers["peer"].exited():
                print(f"[peer] {scenario.name}: not run, the peer had exited", flush=True)
                continue
            print(f"[peer] {scenario.name}", flush=True)
            for connections in args.connections:
                base_url = servers["peer"].base_url
                pool = tmp / f"peer-open-{connections}.lua"
                peer.seed(base_url, args.peer_join_matches, False, pool)
                files["peer_join"] = str(pool)
                data.peer_open = peer.seed(base_url, 1, False, tmp / "peer-probe.lua")[0]
                probed = probe(base_url, scenario.load.probe(data))
                print(f"    probe {scenario.name}: {probed.bytes()}", flush=True)
                shapes = {(scenario.name, ""): probed.bytes()}
                cell = run_cell(
                    "flatfile",
                    scenario,
                    connections,
                    servers,
                    args.duration,
                    files,
                    args.interleave,
                    shapes,
                )
                if cell.result.requests >= 4 * args.peer_join_matches:
                    cell.note += " pool exhausted: req/s is a lower bound"
                cells.append(cell)
    order = {name: i for i, name in enumerate(BY_NAME)}
    cells.sort(key=lambda c: (c.db, order[c.scenario], c.connections))
    print()
    print(table(cells))
    for line in ready_games(cells):
        print(line)
    for soak in soaks:
        print(
            f"\nsoak {soak['db']}: {soak['seconds']} s mixed at 64 conns, {soak['rps']} req/s, "
            f"p50 {soak['p50_ms']:.2f} ms, p99 {soak['p99_ms']:.2f} ms, errors {soak['errors']}; "
            f"RSS MiB start {soak['rss_start_mib']} end {soak['rss_end_mib']} "
            f"max {soak['rss_max_mib']}; samples {soak['samples_mib']}"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "machine": info,
                    "settings": {k: v for k, v in vars(args).items() if k != "json"},
                    "cells": [asdict(c) for c in cells],
                    "soak": soaks,
                },
                indent=2,
                default=str,
            )
        )


if __name__ == "__main__":
    main()
