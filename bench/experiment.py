"""A/B server experiments without editing app/: variants (bench/serve_variant.py) and
worker counts, measured in one run, interleaved, on one fresh database.

    python -m bench.experiment --variants baseline,asyncio-h11 --scenarios healthz,calc-gains
    python -m bench.experiment --variants baseline --workers 1,2 --scenarios get-game
    python -m bench.experiment --checkout before=/tmp/old --variants before,baseline

A ``--checkout NAME=DIR`` variant is ``python -m app`` of another tree (a worktree of the
commit to compare with), run from it on this virtualenv. After the table, each variant's
req/s over the first variant's, round by round (the sides of a ratio ran seconds apart).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from app.persistence.migrate import upgrade
from bench.cells import run_cell
from bench.harness import (
    DEFAULT_PG_SERVER,
    app_command,
    fresh_database,
    run_wrk,
    serve,
    workdir,
)
from bench.scenarios import BY_NAME, SCENARIOS
from bench.seeding import seed
from tests.support.servers import free_port

# What one wrk run per cell measures on the service alone: not the scenarios that use up
# their games or seats (unsliced), run against the peer, or need the in-app routes.
SERVED_HERE = tuple(
    s.name for s in SCENARIOS if s.server == "service" and s.sliced and not s.in_app
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default="baseline,asyncio-h11")
    parser.add_argument("--workers", default="1")
    parser.add_argument("--scenarios", default="healthz,calc-gains,get-game")
    parser.add_argument("--connections", default="1,64")
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2, help="repeat, interleaved")
    parser.add_argument("--db", default="sqlite", choices=["sqlite", "postgres"])
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--pg-server", default=DEFAULT_PG_SERVER)
    parser.add_argument(
        "--checkout", action="append", default=[], help="NAME=DIR: a variant served from DIR"
    )
    args = parser.parse_args()
    names = args.scenarios.split(",")
    unknown = [n for n in names if n not in SERVED_HERE]
    if unknown:
        parser.error(f"not measured here: {unknown}; here: {', '.join(SERVED_HERE)}")
    checkouts = dict(c.split("=", 1) for c in args.checkout)
    tmp = workdir()
    results: dict[tuple[str, int, str, int], list[float]] = {}
    with fresh_database(args.db, args.pg_server, tmp) as url:
        upgrade(url)  # before any variant: a checkout's `python -m app` does not migrate
        env = {"DATABASE_URL": url, "LOG_LEVEL": args.log_level}
        games_file = None
        decide_file = tmp / "d.lua"
        for round_ in range(args.rounds):
            for variant in args.variants.split(","):
                for workers in [int(w) for w in args.workers.split(",")]:
                    port = free_port()
                    command = [sys.executable, "-m", "bench.serve_variant"]
                    command += [str(port), str(workers), variant]
                    where, served = Path.cwd(), env
                    if variant in checkouts:
                        where = Path(checkouts[variant]).resolve()
                        command = app_command(port, workers)
                        served = {**env, "PYTHONPATH": str(where)}
                    print(f"round {round_ + 1}: {variant}, {workers} worker(s)", flush=True)
                    log = tmp / f"{variant}.log"
                    with serve(command, served, port, log, cwd=where) as server:
                        if games_file is None:
                            games_file = tmp / "g.lua"
                            seed(server.base_url, 200, False, "games", games_file)
                            if "put-decision" in names:
                                seed(server.base_url, 200, True, "report games", decide_file)
                        files = {"games": str(games_file), "threads": "1", "rows": "1"}
                        files["decide"] = str(decide_file)
                        run_wrk(server.base_url, "get.lua", ["/healthz"], 8, 1)
                        for name in names:
                            for conns in [int(c) for c in args.connections.split(",")]:
                                # The variant alone: no ceiling or peer is started here.
                                cell = run_cell(
                                    f"{variant}/{workers}w",
                                    BY_NAME[name],
                                    conns,
                                    {"service": server},
                                    args.duration,
                                    files,
                                    0,
                                    {},
                                )
                                key = (variant, workers, name, conns)
                                results.setdefault(key, []).append(cell.result.rps)
    print("\n| variant | workers | scenario | conns | req/s (best of rounds) |")
    print("|---|---:|---|---:|---:|")
    for (variant, workers, name, conns), values in results.items():
        print(f"| {variant} | {workers} | {name} | {conns} | {max(values):.0f} |")
    first = args.variants.split(",")[0]
    print(f"\n| variant | workers | scenario | conns | req/s over {first}'s, per round | median |")
    print("|---|---:|---|---:|---|---:|")
    for (variant, workers, name, conns), values in results.items():
        if variant == first:
            continue
        base = results[(first, workers, name, conns)]
        ratios = [v / b for v, b in zip(values, base, strict=True)]
        shown = ", ".join(f"{r:.2f}" for r in ratios)
        median = statistics.median(ratios)
        print(f"| {variant} | {workers} | {name} | {conns} | {shown} | {median:.2f} |")


if __name__ == "__main__":
    main()
