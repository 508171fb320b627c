"""Load benchmark of the service, driven by wrk over loopback.

    python bench/run.py                      # 10 s per cell, 1 and 64 connections, both DBs
    python bench/run.py --quick              # 3 s per cell: a smoke run on a noisy machine
    python bench/run.py --db sqlite --connections 64 --scenarios healthz,get-game
    python bench/run.py --soak 120           # then 120 s of mixed traffic, sampling RSS
    python bench/run.py --interleave 5       # each ratio against a ceiling run alongside

Per database kind: a fresh database; bench/ceiling.py serves the service's own app (the
one ``python -m app`` serves, same uvicorn options) with two ceiling routes added; games
seeded through the API; one wrk run per (scenario, connections) cell. Prints one line per
cell, then the table with each cell's ratio to its ceiling measured in the same run:
``/healthz`` for calculations, ``read-ceiling`` (one indexed SELECT of a stored text) for
reads of a game, ``txn-ceiling`` (one UPDATE transaction) for writes.

``--interleave N`` measures each cell as N slices alternating with slices of its ceiling
(same connections; the cell's ratio is then to that interleaved ceiling, not to the
ceiling's own row): on a machine whose speed drifts or flips over seconds to minutes (a
shared host), both sides of a ratio see the same machine. Cells take twice as long. The
latencies of a sliced cell are the median of its slices' p50 and the highest p99, and
its p99 is not a steady-state one: every slice begins with all its connections opening
at once, and at 64 connections those first requests are about 1% of a 2 s slice
(``bench/goals.py`` reads p99 from unsliced cells only). resolve-report is never sliced
(a new wrk run would start its pool of fresh games over): its ceiling runs once, just
before it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (
    DEFAULT_PG_SERVER,
    REPO,
    RssSampler,
    WrkResult,
    ceiling_command,
    free_port,
    fresh_database,
    machine,
    require_wrk,
    run_wrk,
    serve,
    workdir,
)

PAYLOADS = REPO / "bench" / "payloads"
PLAYERS = [{"name": "Anna", "leaders": ["sisto_iv"]}, {"name": "Bruno"}]
PLAYERS += [{"name": "Carla"}, {"name": "Dario", "leaders": ["santa_rita"]}]
# Period 1 threshold is 3: p1 and p3 are eligible (default "support"), p2 and p4 are not.
REPORT_FAITH = {"p1": 5, "p2": 2, "p3": 7, "p4": 0}


@dataclass(frozen=True)
class Scenario:
    name: str
    kind: str  # "read", "calc", "write", "ceiling"
    script: str
    args: tuple[str, ...]  # placeholders: {games}, {resolve}, {threads}, {rows}
    ceiling: str  # the scenario it is compared with


SCENARIOS = [
    Scenario("healthz", "ceiling", "get.lua", ("/healthz",), "healthz"),
    Scenario("faith-track", "read", "get.lua", ("/v1/faith-track",), "healthz"),
    Scenario(
        "calc-gains",
        "calc",
        "post_json.lua",
        ("/v1/calculations/gains", str(PAYLOADS / "gains.json")),
        "healthz",
    ),
    Scenario(
        "calc-final-scores",
        "calc",
        "post_json.lua",
        ("/v1/calculations/final-scores", str(PAYLOADS / "final_scores.json")),
        "healthz",
    ),
    Scenario(
        "read-ceiling",
        "ceiling",
        "read_ceiling.lua",
        ("{games}", "/bench/read-ceiling/"),
        "read-ceiling",
    ),
    Scenario("get-game", "read", "get_game.lua", ("{games}",), "read-ceiling"),
    # The same SELECT in a SQLAlchemy Session in the threadpool (the read path of every
    # route on SQLite, and of PostgreSQL with DB_ASYNC_READS=false), and on a pooled DBAPI
    # connection without a Session (pool, ping and threadpool kept): where a read's cost is.
    Scenario(
        "read-ceiling-session",
        "read",
        "read_ceiling.lua",
        ("{games}", "/bench/read-ceiling-session/"),
        "read-ceiling",
    ),
    Scenario(
        "read-ceiling-raw",
        "read",
        "read_ceiling.lua",
        ("{games}", "/bench/read-ceiling-raw/"),
        "read-ceiling",
    ),
    # Before any write: the seeded games are still at version 1, so every answer is a 304.
    Scenario("get-game-304", "read", "get_game.lua", ("{games}", '"1"'), "read-ceiling"),
    Scenario("txn-ceiling", "ceiling", "ceiling_update.lua", ("{rows}",), "txn-ceiling"),
    Scenario("put-faith", "write", "put_faith.lua", ("{games}",), "txn-ceiling"),
    Scenario("put-decision", "write", "put_decision.lua", ("{decide}",), "txn-ceiling"),
    Scenario("resolve-report", "write", "resolve.lua", ("{resolve}", "{threads}"), "txn-ceiling"),
]
BY_NAME = {s.name: s for s in SCENARIOS}


@dataclass
class Cell:
    db: str
    scenario: str
    connections: int
    result: WrkResult
    rss_max_mib: float
    note: str = ""
    # With --interleave: its ceiling, measured in slices alternating with this cell's.
    ceiling_rps: float | None = None
    slices: int = 1  # wrk runs the cell's figures are merged from


# ---- seeding through the API --------------------------------------------------------------


async def _seed_games(base_url: str, count: int, set_faith: bool, label: str) -> list[list]:
    """Create ``count`` 4-player games (and set their faith); return [id, host token, pids]."""
    games: list[list] = []
    limits = httpx.Limits(max_connections=16)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as client:
        queue: asyncio.Queue[int] = asyncio.Queue()
        for i in range(count):
            queue.put_nowait(i)

        async def worker() -> None:
            while not queue.empty():
                i = queue.get_nowait()
                created = await client.post("/v1/games", json={"players": PLAYERS, "seed": i})
                created.raise_for_status()
                data = created.json()
                game_id, token = data["game"]["id"], data["host_token"]
                if set_faith:
                    put = await client.put(
                        f"/v1/games/{game_id}/faith",
                        json={"faith": REPORT_FAITH},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    put.raise_for_status()
                games.append([game_id, token, sorted(data["player_tokens"])])
                if len(games) % 500 == 0:
                    print(f"    seeded {len(games)}/{count} {label}", flush=True)

        await asyncio.gather(*(worker() for _ in range(16)))
    return games


def seed(base_url: str, count: int, set_faith: bool, label: str, path: Path) -> Path:
    started = time.perf_counter()
    games = asyncio.run(_seed_games(base_url, count, set_faith, label))
    write_lua_data(games, path)
    print(f"    seeded {count} {label} in {time.perf_counter() - started:.1f}s", flush=True)
    return path


def write_lua_data(games: list[list], path: Path) -> None:
    """The games as a Lua table for the wrk scripts: {{id, token, {pids}}, ...}."""
    lines = ["return {"]
    for game_id, token, pids in games:
        quoted = ", ".join(f'"{p}"' for p in pids)
        lines.append(f'  {{"{game_id}", "{token}", {{{quoted}}}}},')
    lines.append("}")
    path.write_text("\n".join(lines) + "\n")


# ---- cells --------------------------------------------------------------------------------


def run_cell(
    db: str,
    scenario: Scenario,
    connections: int,
    base_url: str,
    pid: int,
    duration: float,
    files: dict[str, str],
    interleave: int = 0,
) -> Cell:
    def wrk(which: Scenario, seconds: float) -> WrkResult:
        args = [a.format(**files) for a in which.args]
        return run_wrk(base_url, which.script, args, connections, seconds)

    ceiling = BY_NAME[scenario.ceiling]
    ceiling_rps: float | None = None
    slices = 1
    with RssSampler(pid) as rss:
        if not interleave or ceiling is scenario:
            result = wrk(scenario, duration)
        elif scenario.name == "resolve-report":
            ceiling_rps = wrk(ceiling, duration).rps
            result = wrk(scenario, duration)
        else:
            piece = duration / interleave
            pairs = [(wrk(ceiling, piece), wrk(scenario, piece)) for _ in range(interleave)]
            ceiling_rps = _merged([c for c, _ in pairs]).rps
            result = _merged([r for _, r in pairs])
            slices = interleave
    note = ""
    if result.non2xx or result.socket_errors:
        note = f"{result.non2xx} non-2xx, {result.socket_errors} socket errors"
    rss_mib = rss.max_total_mib()
    cell = Cell(db, scenario.name, connections, result, rss_mib, note, ceiling_rps, slices)
    against = f"  ({result.rps / ceiling_rps:.0%} of {ceiling.name})" if ceiling_rps else ""
    print(
        f"  {db:8} {scenario.name:18} c={connections:<3} {result.rps:9.0f} req/s"
        f"  p50 {result.p50_ms:7.2f} ms  p99 {result.p99_ms:7.2f} ms"
        f"  rss {cell.rss_max_mib:6.1f} MiB{against}  {note}",
        flush=True,
    )
    return cell


def _merged(slices: list[WrkResult]) -> WrkResult:
    """One result of several runs: their requests over their time; the median p50 and the
    highest p99 and max (percentiles of slices cannot be merged exactly)."""
    p50s = sorted(r.p50_ms for r in slices)
    return WrkResult(
        requests=sum(r.requests for r in slices),
        duration_s=sum(r.duration_s for r in slices),
        p50_ms=p50s[len(p50s) // 2],
        p99_ms=max(r.p99_ms for r in slices),
        max_ms=max(r.max_ms for r in slices),
        non2xx=sum(r.non2xx for r in slices),
        socket_errors=sum(r.socket_errors for r in slices),
    )


def bench_database(db: str, args: argparse.Namespace, tmp: Path) -> tuple[list[Cell], dict]:
    cells: list[Cell] = []
    soak: dict = {}
    wanted = [BY_NAME[name] for name in args.scenarios]
    env = {"LOG_LEVEL": args.log_level, "BENCH_ROWS": str(args.rows)}
    with fresh_database(db, args.pg_server, tmp) as url:
        env["DATABASE_URL"] = url
        port = free_port()
        log = tmp / f"server-{db}.log"
        print(f"[{db}] starting bench/ceiling.py --workers {args.workers} (log {log})", flush=True)
        with serve(ceiling_command(port, args.workers), env, port, log) as server:
            files = {"threads": "1", "rows": str(args.rows)}
            games = tmp / f"{db}-games.lua"
            files["games"] = str(seed(server.base_url, args.games, False, "games", games))
            if any(s.name == "put-decision" for s in wanted):
                decide = tmp / f"{db}-decide.lua"
                seed(server.base_url, args.games, True, "report games", decide)
                files["decide"] = str(decide)
            # Warm-up: imports, pools, caches.
            run_wrk(server.base_url, "get.lua", ["/healthz"], 8, 1)
            if any(s.name == "get-game-304" for s in wanted):
                assert_not_modified(server.base_url, games)
            for scenario in wanted:
                for connections in args.connections:
                    if scenario.name == "resolve-report":
                        pool = tmp / f"{db}-resolve-{connections}.lua"
                        seed(server.base_url, args.resolve_games, True, "report games", pool)
                        files["resolve"] = str(pool)
                    cell = run_cell(
                        db,
                        scenario,
                        connections,
                        server.base_url,
                        server.process.pid,
                        args.duration,
                        files,
                        args.interleave,
                    )
                    if scenario.name == "resolve-report" and (
                        cell.result.requests >= args.resolve_games
                    ):
                        cell.note += " pool exhausted: req/s is a lower bound"
                    cells.append(cell)
            if args.soak:
                soak = run_soak(db, server.base_url, server.process.pid, args, files)
    return cells, soak


def assert_not_modified(base_url: str, data_file: Path) -> None:
    """The 304 scenario means something only if a seeded game answers ``"1"`` with a 304."""
    first = data_file.read_text().splitlines()[1].split('"')
    game_id, token = first[1], first[3]
    answer = httpx.get(
        f"{base_url}/v1/games/{game_id}",
        headers={"Authorization": f"Bearer {token}", "If-None-Match": '"1"'},
    )
    if answer.status_code != 304:
        raise SystemExit(f"get-game-304: a seeded game answered {answer.status_code}, not 304")


def run_soak(db: str, base_url: str, pid: int, args: argparse.Namespace, files: dict) -> dict:
    """Mixed traffic at 64 connections for ``--soak`` seconds; RSS sampled every 5 s."""
    print(f"  {db:8} soak {args.soak}s of mixed traffic at 64 connections", flush=True)
    mixed = [files["games"], str(PAYLOADS / "gains.json"), str(PAYLOADS / "final_scores.json")]
    with RssSampler(pid, interval=5.0, progress_label=f"{db} soak") as rss:
        result = run_wrk(base_url, "mixed.lua", mixed, 64, args.soak)
    totals = [sum(s.values()) / 1024 for _, s in rss.samples]
    soak = {
        "db": db,
        "seconds": args.soak,
        "rps": round(result.rps),
        "p50_ms": result.p50_ms,
        "p99_ms": result.p99_ms,
        "errors": result.non2xx + result.socket_errors,
        "rss_start_mib": round(totals[0], 1) if totals else 0,
        "rss_end_mib": round(totals[-1], 1) if totals else 0,
        "rss_max_mib": round(max(totals), 1) if totals else 0,
        "samples_mib": [round(t, 1) for t in totals],
    }
    print(
        f"  {db:8} soak: {soak['rps']} req/s, RSS start {soak['rss_start_mib']} MiB, "
        f"end {soak['rss_end_mib']} MiB, max {soak['rss_max_mib']} MiB",
        flush=True,
    )
    return soak


# ---- report -------------------------------------------------------------------------------


def table(cells: list[Cell]) -> str:
    ceilings = {(c.db, c.scenario, c.connections): c.result.rps for c in cells}
    rows = [
        "| db | scenario | conns | req/s | p50 ms | p99 ms | p99/p50 | ratio to ceiling "
        "| max RSS MiB | notes |",
        "|---|---|---:|---:|---:|---:|---:|---|---:|---|",
    ]
    for c in cells:
        ceiling_name = BY_NAME[c.scenario].ceiling
        ceiling = c.ceiling_rps or ceilings.get((c.db, ceiling_name, c.connections))
        if c.scenario == ceiling_name:
            ratio = "(ceiling)"
        elif ceiling:
            ratio = f"{c.result.rps / ceiling:.0%} of {ceiling_name}"
        else:
            ratio = "-"
        spread = c.result.p99_ms / c.result.p50_ms if c.result.p50_ms else 0
        rows.append(
            f"| {c.db} | {c.scenario} | {c.connections} | {c.result.rps:.0f} "
            f"| {c.result.p50_ms:.2f} | {c.result.p99_ms:.2f} | {spread:.1f} | {ratio} "
            f"| {c.rss_max_mib:.1f} | {c.note} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per cell")
    parser.add_argument("--connections", default="1,64", help="comma list, default 1,64")
    parser.add_argument("--db", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument("--scenarios", default=",".join(BY_NAME), help="comma list")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn workers")
    parser.add_argument("--games", type=int, default=1000, help="games for get/put scenarios")
    parser.add_argument(
        "--resolve-games", type=int, default=12000, help="fresh games per resolve-report cell"
    )
    parser.add_argument("--rows", type=int, default=10000, help="rows of the write ceiling")
    parser.add_argument("--log-level", default="info", help="LOG_LEVEL of the server")
    parser.add_argument("--soak", type=int, default=0, help="seconds of mixed traffic (RSS)")
    parser.add_argument("--pg-server", default=DEFAULT_PG_SERVER, help="admin URL")
    parser.add_argument("--quick", action="store_true", help="3 s cells, fewer games")
    parser.add_argument("--json", type=Path, help="also write the cells as JSON here")
    parser.add_argument(
        "--interleave",
        type=int,
        default=0,
        help="measure each cell in N slices alternating with its ceiling (see above)",
    )
    args = parser.parse_args()
    if args.quick:
        args.duration = min(args.duration, 3.0)
        args.games = min(args.games, 300)
        args.resolve_games = min(args.resolve_games, 1500)
    args.connections = [int(c) for c in args.connections.split(",")]
    args.scenarios = [s.strip() for s in args.scenarios.split(",")]
    unknown = [s for s in args.scenarios if s not in BY_NAME]
    if unknown:
        parser.error(f"unknown scenarios {unknown}; known: {', '.join(BY_NAME)}")
    require_wrk()

    info = machine()
    print(" ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    tmp = workdir()
    cells: list[Cell] = []
    soaks: list[dict] = []
    for db in args.db.split(","):
        db_cells, soak = bench_database(db.strip(), args, tmp)
        cells += db_cells
        if soak:
            soaks.append(soak)
    # Ceilings first within each database so the table reads top-down.
    order = {name: i for i, name in enumerate(["healthz", "read-ceiling", "txn-ceiling", *BY_NAME])}
    cells.sort(key=lambda c: (c.db, order[c.scenario], c.connections))
    print()
    print(table(cells))
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
