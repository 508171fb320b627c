"""A rolling restart behind nginx, measured: figures for bench/ROLLING.md.

    python -m bench.rolling                          # the test's scenario, printed
    python -m bench.rolling --steady 30 --out bench/ROLLING.md

The scenario is tests/deploy/rolling.py's, the one tests/deploy/test_rolling.py asserts on:
Debian's nginx with deploy/nginx's configuration in front of three ``python -m app``
replicas on a throwaway database of the PostgreSQL at TEST_POSTGRES_URL (default
127.0.0.1:5432), clients that retry as the SDK does, a live stream on every game; each
replica in turn gets SIGTERM and comes back on a release with one more migration.
Operations per second and latencies are the clients' (retries included), by the time
each operation ended, per phase.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import sys
import tempfile
from pathlib import Path

from tests.conftest import (
    DEFAULT_TEST_POSTGRES_URL,
    _create_database,
    _drop_database,
    _with_database,
)
from tests.deploy.rolling import Outcome, Scenario, phase_figures, problems, run


def render(outcome: Outcome, scenario: Scenario, command: str, load: str) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    found = problems(outcome)
    rolling_start = outcome.phases["rolling restart"][0]
    lines = [
        "# A rolling restart behind nginx",
        "",
        f"Produced by `{command}` on {now}, 2 cores shared with other work (the load",
        f"average, before and after: {load}; figures are indicative; loopback). nginx",
        "([`deploy/nginx`](../deploy/nginx)) in front of",
        f"{scenario.replicas} `python -m app` replicas on one PostgreSQL database;",
        f"{scenario.clients} clients retrying as the SDK does play {scenario.games} games, each",
        "followed by a live stream. Each replica in turn gets SIGTERM and starts again on a",
        "release with one more migration (a nullable column), applied by the first one while",
        "the others still run the previous release. The scenario is",
        "[`tests/deploy/rolling.py`](../tests/deploy/rolling.py); `tests/deploy/test_rolling.py`",
        "asserts on the same run; what it means for an operator is in",
        "[docs/deploy.md](../docs/deploy.md#rolling-restarts).",
        "",
        "## Throughput and latency by phase",
        "",
        "An operation is one call of the SDK, its retries included; `retried` counts the",
        "operations that needed more than one try.",
        "",
        "The machine is shared: its load average at the end of each phase says how much of",
        "a difference between phases is the restarts and how much the other work. Here a",
        "starting replica (imports, migrations) also takes the same two cores as the two",
        "replicas still serving, nginx, PostgreSQL and the clients; with replicas on hosts",
        "or pods of their own, a restart costs only the stopped replica's share.",
        "",
        "| phase | seconds | operations | per second | p50 ms | p99 ms | retried | load |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, row in phase_figures(outcome).items():
        lines.append(
            f"| {name} | {row['seconds']:.1f} | {row['operations']:.0f} | "
            f"{row['per_second']:.1f} | {row['p50_ms']:.0f} | {row['p99_ms']:.0f} | "
            f"{row['retried']:.0f} | {outcome.loads[name]:.1f} |"
        )
    lines += [
        "",
        "## Each restart",
        "",
        "| replica | stopped at s | SIGTERM to exit s | stopped to ready s | schema after |",
        "| --- | --- | --- | --- | --- |",
    ]
    for restart in outcome.restarts:
        lines.append(
            f"| {restart.replica} | {restart.stopped_at - rolling_start:.1f} | "
            f"{restart.exit_s:.2f} | {restart.ready_at - restart.stopped_at:.1f} | "
            f"`{restart.revision_after}` |"
        )
    connections = [follower.connections for follower in outcome.followers]
    resolutions = sum(len(game.resolutions) for game in outcome.games)
    lines += [
        "",
        "## What was checked",
        "",
        "| figure | value |",
        "| --- | --- |",
        f"| failed operations | {sum(not op.ok for op in outcome.ops)} |",
        f"| operations in all | {len(outcome.ops)} |",
        f"| requests nginx sent on to another replica | {outcome.nginx_retried} |",
        f"| streams, connections per stream (min-max) | {len(connections)}, "
        f"{min(connections)}-{max(connections)} |",
        f"| stream refusals (503) seen by clients | "
        f"{sum(follower.refusals for follower in outcome.followers)} |",
        f"| longest time a stream was away, s | "
        f"{max(follower.longest_gap_s for follower in outcome.followers):.1f} |",
        f"| events delivered, all streams | "
        f"{sum(len(follower.seqs) for follower in outcome.followers)} |",
        f"| reports resolved | {resolutions} |",
        f"| schema before, after | `{outcome.revision_before}`, `{outcome.revision_after}` |",
        f"| problems (missed or repeated events, resolutions not once, ...) | "
        f"{len(found)}{': ' + '; '.join(found[:5]) if found else ''} |",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    defaults = Scenario()
    parser.add_argument("--nginx", default="/usr/sbin/nginx")
    parser.add_argument("--games", type=int, default=defaults.games)
    parser.add_argument("--clients", type=int, default=defaults.clients)
    parser.add_argument("--steady", type=float, default=defaults.steady_s, help="seconds")
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    args = parser.parse_args()
    scenario = Scenario(games=args.games, clients=args.clients, steady_s=args.steady)
    server = os.environ.get("TEST_POSTGRES_URL", DEFAULT_TEST_POSTGRES_URL)
    name = _create_database(server)
    load_before = os.getloadavg()[0]
    try:
        with tempfile.TemporaryDirectory(prefix="vr-rolling-") as folder:
            outcome = asyncio.run(
                run(scenario, _with_database(server, name), args.nginx, Path(folder))
            )
    finally:
        _drop_database(server, name)
    command = " ".join(["python -m bench.rolling", *sys.argv[1:]])
    report = render(outcome, scenario, command, f"{load_before:.1f}, {os.getloadavg()[0]:.1f}")
    print(report)
    if args.out:
        args.out.write_text(report)


if __name__ == "__main__":
    main()
