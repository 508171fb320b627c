"""The steps of a run on one database kind: its servers, the probes of their answers, the
cells, and the soak."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from bench import peer
from bench.cells import Cell, run_cell
from bench.harness import (
    RssSampler,
    app_command,
    ceiling_command,
    fresh_database,
    in_app_command,
    run_wrk,
    serve,
)
from bench.probes import probe
from bench.scenarios import PAYLOADS, Data, Scenario
from bench.seeding import seed
from tests.support.servers import Launched, free_port


@contextmanager
def serving(
    name: str,
    command: Callable[[int], list[str]],
    env: dict[str, str],
    tmp: Path,
    ready: str = "/readyz",
) -> Iterator[Launched]:
    """``command(port)`` on a free port, until it answers ``ready``."""
    port = free_port()
    log = tmp / f"server-{name}.log"
    line = " ".join(Path(a).name if a.startswith("/") else a for a in command(port))
    print(f"  [{name}] {line} (log {log})", flush=True)
    with serve(command(port), env, port, log, ready_path=ready) as server:
        yield server


@contextmanager
def peer_server(tmp: Path) -> Iterator[Launched]:
    """boardgame.io's server on an empty FlatFile folder."""
    peer.install()
    storage = tmp / "peer-flatfile"
    storage.mkdir()
    with serving("peer", lambda p: peer.command(p, storage), peer.ENV, tmp, "/games") as server:
        yield server


def bench_database(
    db: str,
    wanted: list[Scenario],
    args: argparse.Namespace,
    tmp: Path,
    servers: dict[str, Launched],
    data: Data,
    files: dict[str, str],
) -> tuple[list[Cell], dict[str, Any]]:
    cells: list[Cell] = []
    soak: dict[str, Any] = {}
    env = {"LOG_LEVEL": args.log_level, "BENCH_ROWS": str(args.rows)}
    with fresh_database(db, args.pg_server, tmp) as url, ExitStack() as stack:
        env["DATABASE_URL"] = url
        print(f"[{db}]", flush=True)
        command = in_app_command if any(s.in_app for s in wanted) else app_command
        workers = args.workers
        service = stack.enter_context(serving(db, lambda p: command(p, workers), env, tmp))
        servers = {**servers, "service": service}
        files = {**files, "threads": "1", "rows": str(args.rows)}
        data.games = seed(service.base_url, args.games, False, "games", tmp / f"{db}-games.lua")
        files["games"] = str(tmp / f"{db}-games.lua")
        if any(s.name == "put-decision" for s in wanted):
            decide = tmp / f"{db}-decide.lua"
            data.decide = seed(service.base_url, args.decide_games, True, "report games", decide)
            files["decide"] = str(decide)
        data.probe_game = seed(service.base_url, 1, True, "probe game", tmp / f"{db}-probe.lua")[0]
        if any(s.name == "get-game-304" for s in wanted):
            assert_not_modified(service.base_url, data.games[0])
        shapes, answers = probe_all(service, wanted, data)
        answers_file = tmp / f"{db}-answers.json"
        answers_file.write_text(json.dumps({"answers": answers}, indent=1))
        needed = {r.server for s in wanted for r in s.against} - {"peer"}
        ceiling_env = {"CEILING_ANSWERS": str(answers_file), "DATABASE_URL": url}
        for name in sorted(needed):
            ceiling = serving(f"{db}-{name}", partial(ceiling_command, name), ceiling_env, tmp)
            servers[name] = stack.enter_context(ceiling)
        probe_references(servers, wanted, data, shapes)
        # Warm-up: imports, pools, caches.
        for server in servers.values():
            run_wrk(server.base_url, "get.lua", ["/readyz"], 8, 1)
        for scenario in wanted:
            if scenario.server != "service":
                continue
            for connections in args.connections:
                if scenario.name == "resolve-report":
                    pool = tmp / f"{db}-resolve-{connections}.lua"
                    seed(service.base_url, args.resolve_games, True, "report games", pool)
                    files["resolve"] = str(pool)
                cell = run_cell(
                    db,
                    scenario,
                    connections,
                    servers,
                    args.duration,
                    files,
                    args.interleave,
                    shapes,
                )
                # A connection's last request is not counted when its thread stops on
                # an empty pool: up to one request a connection short of the pool.
                if scenario.name == "resolve-report" and (
                    cell.result.requests + connections >= args.resolve_games
                ):
                    cell.note += " pool exhausted: req/s is a lower bound"
                cells.append(cell)
        if args.soak:
            soak = run_soak(db, service.base_url, service.pid, args, files)
    return cells, soak


def probe_all(
    service: Launched, wanted: list[Scenario], data: Data
) -> tuple[dict[tuple[str, str], str], list[dict[str, Any]]]:
    """One request of each scenario against the service: its bytes, and the answers the
    ceilings are to send (in the order of ``SCENARIOS``, so a 200 comes before a 304)."""
    shapes: dict[tuple[str, str], str] = {}
    answers: list[dict[str, Any]] = []
    for scenario in wanted:
        if scenario.server != "service":
            continue
        probed = probe(service.base_url, scenario.load.probe(data))
        shapes[scenario.name, ""] = probed.bytes()
        answers.append(probed.answer())
        print(f"    probe {scenario.name}: {probed.bytes()}", flush=True)
    return shapes, answers


def probe_references(
    servers: dict[str, Launched],
    wanted: list[Scenario],
    data: Data,
    shapes: dict[tuple[str, str], str],
) -> None:
    """The same requests against each ceiling (which must answer the same status), the
    peer's against the peer."""
    for scenario in wanted:
        for ref in scenario.against:
            if ref.server not in servers or (ref.server == "peer" and not data.peer_matches):
                continue
            if servers[ref.server].exited():
                continue
            probed = probe(servers[ref.server].base_url, (ref.load or scenario.load).probe(data))
            shapes[scenario.name, ref.name] = probed.bytes()
            print(f"    probe {scenario.name} on {ref.name}: {probed.bytes()}", flush=True)
            mine = shapes[scenario.name, ""].split(",")[0]
            if ref.server != "peer" and str(probed.status) != mine:
                raise SystemExit(
                    f"{ref.name} answered {probed.status} to {scenario.name}, not {mine}"
                )


def assert_not_modified(base_url: str, game: list[Any]) -> None:
    """The 304 scenario means something only if a seeded game answers ``"1"`` with a 304."""
    answer = httpx.get(
        f"{base_url}/v1/games/{game[0]}",
        headers={"Authorization": f"Bearer {game[1]}", "If-None-Match": '"1"'},
    )
    if answer.status_code != 304:
        raise SystemExit(f"get-game-304: a seeded game answered {answer.status_code}, not 304")


def run_soak(
    db: str, base_url: str, pid: int, args: argparse.Namespace, files: dict[str, str]
) -> dict[str, Any]:
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
