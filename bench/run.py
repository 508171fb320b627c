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
import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from bench import peer
from bench.harness import (
    DEFAULT_PG_SERVER,
    RssSampler,
    WrkResult,
    app_command,
    ceiling_command,
    fresh_database,
    in_app_command,
    machine,
    require_wrk,
    run_wrk,
    serve,
    workdir,
)
from bench.probes import probe
from bench.scenarios import (
    BY_NAME,
    DEFAULT,
    PAYLOADS,
    PLAYERS,
    REPORT_FAITH,
    SCENARIOS,
    Data,
    Load,
    Scenario,
)
from tests.support.servers import Launched, free_port


@dataclass
class Measured:
    """One side of a cell: its merged wrk runs and the max RSS of the server it ran on."""

    name: str
    result: WrkResult
    rss_max_mib: float
    bytes: str = ""  # of the probed answer: status, head + body


@dataclass
class Cell:
    db: str
    scenario: str
    connections: int
    result: WrkResult
    rss_max_mib: float
    note: str = ""
    slices: int = 1  # wrk runs the cell's figures are merged from
    bytes: str = ""
    against: list[Measured] = field(default_factory=list)


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
                create = {"players": PLAYERS, "seed": i}
                data = (await _retried(client.post, "/v1/games", json=create)).json()
                game_id, token = data["game"]["id"], data["host_token"]
                if set_faith:
                    await _retried(
                        client.put,
                        f"/v1/games/{game_id}/faith",
                        json={"faith": REPORT_FAITH},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                games.append([game_id, token, sorted(data["player_tokens"])])
                if len(games) % 2000 == 0:
                    print(f"    seeded {len(games)}/{count} {label}", flush=True)

        await asyncio.gather(*(worker() for _ in range(16)))
    return games


async def _retried(
    call: Callable[..., Awaitable[httpx.Response]], *args: Any, **kwargs: Any
) -> httpx.Response:
    """A seeding request, tried again if its connection is cut (on a loaded host a few
    are, out of thousands); a create tried again leaves at most an unused game."""
    for attempt in range(3):
        try:
            answer = await call(*args, **kwargs)
            return answer.raise_for_status()
        except httpx.TransportError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def seed(base_url: str, count: int, set_faith: bool, label: str, path: Path) -> list[list]:
    started = time.perf_counter()
    games = asyncio.run(_seed_games(base_url, count, set_faith, label))
    write_lua_data(games, path)
    print(f"    seeded {count} {label} in {time.perf_counter() - started:.1f}s", flush=True)
    return games


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
    servers: dict[str, Launched],
    duration: float,
    files: dict[str, str],
    interleave: int,
    shapes: dict[tuple[str, str], str],
) -> Cell:
    """The scenario against its server and the same operation against each reference."""

    def wrk(server: Launched, load: Load, seconds: float) -> WrkResult:
        args = [a.format(**files) for a in load.args]
        return run_wrk(server.base_url, load.script, args, connections, seconds)

    def exited(name: str) -> bool:
        return servers[name].exited()

    known = [r for r in scenario.against if r.server in servers]
    refs = [r for r in known if not exited(r.server)]
    notes = [f"{r.name}: its server had exited" for r in known if exited(r.server)]
    rounds = max(1, interleave) if scenario.sliced else 1
    piece = duration / rounds
    mine: list[WrkResult] = []
    theirs: list[list[WrkResult]] = [[] for _ in refs]
    with ExitStack() as stack:
        rss = {
            name: stack.enter_context(RssSampler(servers[name].pid))
            for name in {scenario.server, *(r.server for r in refs)}
        }
        lost: dict[str, int] = {}  # reference -> its slices done when its server exited
        for _ in range(rounds):
            for i, ref in enumerate(refs):
                if ref.name in lost:
                    continue
                if not exited(ref.server):
                    try:
                        load = ref.load or scenario.load
                        theirs[i].append(wrk(servers[ref.server], load, piece))
                        continue
                    except RuntimeError:
                        # A reference that dies under load (the peer can) is a finding,
                        # not the end of the run: the cell says so, later cells go without.
                        if not exited(ref.server):
                            raise
                lost[ref.name] = len(theirs[i])
            mine.append(wrk(servers[scenario.server], scenario.load, piece))
    result = _merged(mine)
    against = [
        Measured(
            ref.name,
            _merged(runs) if runs else WrkResult(0, 0.0, 0.0, 0.0, 0.0, 0, 0),
            rss[ref.server].max_total_mib(),
            shapes.get((scenario.name, ref.name), ""),
        )
        for ref, runs in zip(refs, theirs, strict=True)
    ]
    notes += [
        f"{name}: its server exited during the cell, after {done} of {rounds} slices"
        for name, done in lost.items()
    ]
    notes = [_errors(result), *notes]
    notes += [f"{m.name}: {e}" for m in against if (e := _errors(m.result))]
    cell = Cell(
        db,
        scenario.name,
        connections,
        result,
        rss[scenario.server].max_total_mib(),
        "; ".join(n for n in notes if n),
        len(mine),
        shapes.get((scenario.name, ""), ""),
        against,
    )
    ratios = "".join(f"  {_ratio(result, m.result)} of {m.name}" for m in against)
    print(
        f"  {db:8} {scenario.name:18} c={connections:<3} {result.rps:9.0f} req/s"
        f"  p50 {result.p50_ms:7.2f} ms  p99 {result.p99_ms:7.2f} ms"
        f"  rss {cell.rss_max_mib:6.1f} MiB{ratios}  {cell.note}",
        flush=True,
    )
    return cell


def _errors(result: WrkResult) -> str:
    if result.non2xx or result.socket_errors:
        return f"{result.non2xx} non-2xx/3xx, {result.socket_errors} socket errors"
    return ""


def _ratio(mine: WrkResult, theirs: WrkResult) -> str:
    return f"{mine.rps / theirs.rps:.0%}" if theirs.rps else "-"


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


# ---- servers ------------------------------------------------------------------------------


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
) -> tuple[list[Cell], dict]:
    cells: list[Cell] = []
    soak: dict = {}
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
                if scenario.name == "resolve-report" and (
                    cell.result.requests >= args.resolve_games
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


def assert_not_modified(base_url: str, game: list) -> None:
    """The 304 scenario means something only if a seeded game answers ``"1"`` with a 304."""
    answer = httpx.get(
        f"{base_url}/v1/games/{game[0]}",
        headers={"Authorization": f"Bearer {game[1]}", "If-None-Match": '"1"'},
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
    rows = [
        "| db | scenario | conns | req/s | p50 ms | p99 ms | p99/p50 | ratio | answer bytes "
        "| max RSS MiB | notes |",
        "|---|---|---:|---:|---:|---:|---:|---|---|---:|---|",
    ]

    def row(
        db: str, name: str, conns: int, r: WrkResult, ratio: str, shape: str, rss: float, note: str
    ) -> str:
        spread = r.p99_ms / r.p50_ms if r.p50_ms else 0
        return (
            f"| {db} | {name} | {conns} | {r.rps:.0f} | {r.p50_ms:.2f} | {r.p99_ms:.2f} "
            f"| {spread:.1f} | {ratio} | {shape} | {rss:.1f} | {note} |"
        )

    for c in cells:
        ratio = "; ".join(f"{_ratio(c.result, m.result)} of {m.name}" for m in c.against)
        rows.append(
            row(
                c.db,
                c.scenario,
                c.connections,
                c.result,
                ratio or "-",
                c.bytes,
                c.rss_max_mib,
                c.note,
            )
        )
        for m in c.against:
            rows.append(
                row(
                    c.db,
                    f"&nbsp;&nbsp;{m.name}",
                    c.connections,
                    m.result,
                    "(reference)",
                    m.bytes,
                    m.rss_max_mib,
                    "",
                )
            )
    return "\n".join(rows)


def ready_games(cells: list[Cell]) -> list[str]:
    """A game four players can act in: the service's one create against boardgame.io's
    create and four joins, each at the rate measured in this run."""
    joins = {c.connections: c.result.rps for c in cells if c.scenario == "peer-join"}
    lines = []
    for c in cells:
        create = next((m for m in c.against if m.name == "boardgame.io create"), None)
        if c.scenario != "create-game" or create is None or not joins.get(c.connections):
            continue
        theirs = 1 / (1 / create.result.rps + 4 / joins[c.connections])
        lines.append(
            f"- {c.db}, c={c.connections}: the service {c.result.rps:.0f} games/s (one request,"
            f" five tokens); boardgame.io {theirs:.0f} (create {create.result.rps:.0f}/s,"
            f" 4 joins at {joins[c.connections]:.0f}/s): {c.result.rps / theirs:.0%}"
        )
    return lines


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
    parser.add_argument("--quick", action="store_true", help="3 s cells, fewer games")
    parser.add_argument("--json", type=Path, help="also write the cells as JSON here")
    parser.add_argument(
        "--interleave",
        type=int,
        default=0,
        help="measure each cell in N rounds alternating with its references (see above)",
    )
    args = parser.parse_args()
    if args.quick:
        args.duration = min(args.duration, 3.0)
        args.games = min(args.games, 1000)
        args.decide_games = min(args.decide_games, 300)
        args.resolve_games = min(args.resolve_games, 1500)
        args.peer_matches = min(args.peer_matches, 300)
        args.peer_join_matches = min(args.peer_join_matches, 1000)
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
    soaks: list[dict] = []
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
