"""Attacks on the HTTP edge, before and after: figures for bench/ATTACKS.md.

    python -m bench.attacks                      # the edge (python -m app) only
    python -m bench.attacks --before DIR         # and the same attacks on another checkout
    python -m bench.attacks --attacks endless-headers,pipelined --out bench/ATTACKS.md

``--before DIR``: a checkout to compare with, e.g. ``git archive main | tar -x -C DIR``;
``python -m app`` is run there with this venv. Everything is on 127.0.0.1 and bounded:
every attack stops after its time budget, and stops sending as soon as the server's
memory passes ``--rss-guard`` MiB (reported as such), so that "before" cannot exhaust the
machine. One line of progress per attack. The attacks the tests in tests/edge assert on
are in tests/support (this script imports them; tests never import bench/).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from bench.game_attacks import guessable_idempotency_key, player_flips
from tests.support.edge_attacks import (
    address_flood,
    client_disconnects,
    complete_huge_header,
    endless_headers,
    many_headers,
    over_connection_limit,
    pipelined_unread,
)
from tests.support.probes import alive, children_of, cmdline, open_fds
from tests.support.raw_http import ask, connect, status_of
from tests.support.servers import REPO_ROOT, Command, Server, free_port, running
from tests.support.stream_replays import replay_flood
from tests.support.write_starvation import (
    create_games,
    make_changes_slow,
    stalled_bodies,
    stuck_game_storm,
    summary,
)

# The attacks only the bench runs (the ones tests assert on are in tests/support). Each
# takes the server's port (and pid) and returns a dict of figures.


def idle_connections(
    port: int, pid: int, *, connections: int = 2000, wait: float = 7.0
) -> dict[str, Any]:
    """``connections`` clients connect and send nothing; how many are open after ``wait``."""
    socks = []
    fds_before = open_fds(pid)
    for _ in range(connections):
        try:
            socks.append(connect(port, timeout=2.0))
        except OSError:
            break
    fds_during = open_fds(pid)
    time.sleep(wait)
    still_open = 0
    for sock in socks:
        sock.setblocking(False)
        try:
            still_open += sock.recv(1) != b""
        except BlockingIOError:
            still_open += 1
        except OSError:
            pass
        sock.close()
    return {
        "connected": len(socks),
        "server_fds_before": fds_before,
        "server_fds_with_idle": fds_during,
        f"open_after_{wait:g}s": still_open,
    }


def slow_headers(
    port: int, *, connections: int = 50, seconds: float = 14.0, interval: float = 0.5
) -> dict[str, Any]:
    """Slowloris: each client sends one short header line every ``interval`` seconds."""
    socks = [connect(port) for _ in range(connections)]
    for sock in socks:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: attack\r\n")
    open_since = {sock: time.monotonic() for sock in socks}
    closed_after: list[float] = []
    deadline = time.monotonic() + seconds
    line = 0
    while open_since and time.monotonic() < deadline:
        time.sleep(interval)
        line += 1
        for sock in list(open_since):
            try:
                sock.sendall(b"X-Slow-%d: v\r\n" % line)
                sock.setblocking(False)
                try:
                    gone = sock.recv(4096) == b""
                except BlockingIOError:
                    gone = False
                sock.setblocking(True)
            except OSError:
                gone = True
            if gone:
                closed_after.append(time.monotonic() - open_since.pop(sock))
                sock.close()
    for sock in open_since:
        sock.close()
    return {
        "connections": connections,
        f"still_open_after_{seconds:g}s": len(open_since),
        "closed_after_s_max": round(max(closed_after), 1) if closed_after else None,
    }


def stalled_write_slots(port: int) -> dict[str, Any]:
    """3 tokenless change heads whose bodies never come (within the server's 30 s body
    timeout), then 9 changes of other games, one after the other."""
    victims = summary(stalled_bodies(port, f"http://127.0.0.1:{port}"))
    return {"other_games_changes": victims["statuses"], "seconds_max": victims["seconds_max"]}


def slow_game(port: int, database: Path) -> dict[str, Any]:
    """SQLite: every change of one game made slow (a trigger, the write lock held), 8 of
    them at once, then 5 changes of another game, one after the other."""
    base_url = f"http://127.0.0.1:{port}"
    stuck_game, other_game = create_games(base_url, 2)
    make_changes_slow(database, stuck_game.id)
    stuck, victims = stuck_game_storm(base_url, stuck_game, other_game)
    return {
        "other_game_changes": summary(victims)["statuses"],
        "other_game_seconds_max": summary(victims)["seconds_max"],
        "slow_game_changes": summary(stuck)["statuses"],
    }


def head_and_accept(port: int) -> dict[str, Any]:
    """HEAD on GET routes; GETs and a change with an Accept their route cannot answer."""
    base_url = f"http://127.0.0.1:{port}"
    (game,) = create_games(base_url, 1)
    paths = [
        "/healthz",
        "/v1/faith-track",
        "/v1/excommunication-tiles/I-1",
        game.url,
        f"{game.url}/events",
        f"{game.url}/reports/1",
        "/openapi.json",
        "/docs",
    ]
    with httpx.Client(base_url=base_url, headers=game.auth, timeout=30) as http:
        heads: dict[str, int] = {}
        for path in paths:
            status = str(http.head(path).status_code)
            heads[status] = heads.get(status, 0) + 1
        xml = http.get(game.url, headers={"Accept": "application/xml"}).status_code
        stream = http.get(game.url, headers={"Accept": "text/event-stream"}).status_code
        change = http.put(
            f"{game.url}/players/p1/faith",
            json={"faith": 5},
            headers={"Accept": "application/xml"},
        ).status_code
        version = http.get(game.url).json()["version"]
    return {
        f"head_on_{len(paths)}_get_routes": heads,
        "get_accept_xml": xml,
        "get_accept_event_stream": stream,
        "change_accept_xml": change,
        "change_made_anyway": version > 1,
    }


def metrics_exposure(port: int) -> dict[str, Any]:
    """GET /metrics from 127.0.0.2, with METRICS_NETWORKS=127.0.0.1/32 (127.0.0.2 stands
    for another network)."""
    request = b"GET /metrics HTTP/1.1\r\nHost: attack\r\nConnection: close\r\n\r\n"
    outside = ask(port, request, source="127.0.0.2")
    return {
        "status_from_127.0.0.2": status_of(outside),
        "metrics_disclosed": b"http_requests_total" in outside,
    }


def stream_replays(port: int, pid: int) -> dict[str, Any]:
    """1,000 unread replays of a game of 1,000 events (held 15 s) while two other games
    are read and changed one request after the other: the worker's RSS, and what the
    other games' requests met."""
    figures = replay_flood(port, pid)
    for victims in ("other_reads", "other_writes"):
        for key, value in figures.pop(victims).items():
            figures[f"{victims}_{key}"] = value
    return figures


# Servers


@contextlib.contextmanager
def serve(
    tree: Path,
    workdir: Path,
    *,
    workers: int = 1,
    env: dict[str, str] | None = None,
    name: str = "server",
) -> Iterator[tuple[int, subprocess.Popen[bytes], Path]]:
    """``python -m app`` from ``tree`` on a free port, fresh SQLite database, the settings'
    own rate limits, log level info; yields the port, the process and its log path."""
    server = Server(
        "",
        workdir,
        name,
        workers=workers,
        cwd=tree,
        env={"LOG_LEVEL": "info", **(env or {})},
        rate_limits=True,
    )
    # Named after the port, as its log is (slow-game finds its database by it).
    server.database_url = f"sqlite:///{workdir}/{name}-{server.port}.db"
    with running(server, timeout=60):
        assert server.proc is not None
        yield server.port, server.proc, server.log_path


def kill_master(tree: Path, workdir: Path) -> dict[str, Any]:
    """``--workers 2``; SIGKILL the master: do its workers go, and the metrics folder?"""
    tmpdir = Path(tempfile.mkdtemp(prefix="tmp-kill-", dir=workdir))
    with serve(tree, workdir, workers=2, env={"TMPDIR": str(tmpdir)}, name="kill") as (
        _port,
        proc,
        _log,
    ):
        workers = [pid for pid in children_of(proc.pid) if "spawn_main" in cmdline(pid)]
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(pid) for pid in workers):
            time.sleep(0.1)
        survivors = [pid for pid in workers if alive(pid)]
        for pid in survivors:  # clean up after the "before" run
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    leftovers = sorted(p.name for p in tmpdir.glob("vatican-metrics-*"))
    return {
        "children": len(workers),
        "alive_10s_after_master_killed": len(survivors),
        "metrics_folders_left": len(leftovers),
    }


def stop_master(tree: Path, workdir: Path) -> dict[str, Any]:
    """``--workers 2``, stopped with SIGTERM: is the metrics folder removed?"""
    tmpdir = Path(tempfile.mkdtemp(prefix="tmp-stop-", dir=workdir))
    with serve(tree, workdir, workers=2, env={"TMPDIR": str(tmpdir)}, name="stop"):
        pass
    return {"metrics_folders_left": len(list(tmpdir.glob("vatican-metrics-*")))}


# Throughput


def wrk(port: int, connections: int, seconds: int, path: str = "/healthz") -> float:
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", f"http://127.0.0.1:{port}{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    match = re.search(r"Requests/sec:\s+([0-9.]+)", out)
    return float(match.group(1)) if match else 0.0


PLAIN_UVICORN = """\
import sys, uvicorn
from app.__main__ import log_config
uvicorn.run("app.main:app", host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
            log_config=log_config("WARNING"), access_log=False, loop="auto", http="httptools",
            proxy_headers=True)
"""


def throughput(workdir: Path, rounds: int, seconds: int) -> dict[str, Any]:
    """Requests/s on GET /healthz: plain uvicorn httptools vs the edge protocol, same app,
    one worker, wrk with 1 and 64 connections; best of ``rounds``, interleaved."""
    results: dict[str, list[float]] = {}
    for round_ in range(rounds):
        for variant in ("plain-httptools", "edge"):
            port = free_port()
            if variant == "edge":
                argv = [sys.executable, "-m", "app", "--port", str(port)]
            else:
                argv = [sys.executable, "-c", PLAIN_UVICORN, str(port)]
            server = Command(
                argv,
                f"tp-{variant}",
                workdir / f"tp-{variant}.log",
                port=port,
                ready_path="/healthz",
                env={"DATABASE_URL": f"sqlite:///{workdir}/tp.db", "LOG_LEVEL": "warning"},
            )
            with running(server, timeout=60):
                for conns in (1, 64):
                    value = wrk(port, conns, seconds)
                    results.setdefault(f"{variant} c{conns}", []).append(value)
                    print(
                        f"  round {round_ + 1} {variant} c={conns}: {value:.0f} req/s", flush=True
                    )
    return {key: [round(v) for v in values] for key, values in results.items()}


# Runner

ATTACK_NAMES = [
    "endless-headers",
    "complete-16mb-header",
    "10000-headers",
    "pipelined",
    "idle",
    "slow-headers",
    "connection-limit",
    "disconnects",
    "kill-master",
    "stop-master",
    "stalled-write-slots",
    "slow-game",
    "address-flood",
    "head-accept",
    "metrics-exposure",
    "stream-replays",
    "guessable-idempotency-key",
    "player-flips",
]


def run_attacks(tree: Path, workdir: Path, names: list[str], guard: float) -> dict[str, Any]:
    results: dict[str, Any] = {}

    def step(name: str, fn: Callable[[], dict[str, Any]]) -> None:
        if name not in names:
            return
        print(f"  {name} ...", flush=True)
        start = time.monotonic()
        results[name] = fn()
        print(f"  {name}: {results[name]} ({time.monotonic() - start:.1f} s)", flush=True)

    def wanted(*group: str) -> bool:
        return any(name in names for name in group)

    # A fresh server per group (only for a group with an attack asked for), so one
    # attack's leftovers do not skew the next.
    if wanted("endless-headers"):
        with serve(tree, workdir, name="headers") as (port, proc, _):
            step("endless-headers", lambda: endless_headers(port, proc.pid, rss_guard=guard))
    if wanted("complete-16mb-header", "10000-headers"):
        with serve(tree, workdir, name="huge") as (port, proc, _):
            step("complete-16mb-header", lambda: complete_huge_header(port))
            step("10000-headers", lambda: many_headers(port))
    if wanted("pipelined"):
        with serve(tree, workdir, name="pipelined") as (port, proc, _):
            step("pipelined", lambda: pipelined_unread(port, proc.pid, rss_guard=guard))
    if wanted("idle", "slow-headers"):
        with serve(tree, workdir, name="idle") as (port, proc, _):
            step("idle", lambda: idle_connections(port, proc.pid))
            step("slow-headers", lambda: slow_headers(port))
    if wanted("connection-limit"):
        with serve(tree, workdir, name="limit", env={"MAX_CONNECTIONS": "100"}) as (port, _p, _):
            step("connection-limit", lambda: over_connection_limit(port, held=100))
    if wanted("disconnects"):
        with serve(tree, workdir, name="disconnect") as (port, proc, log):
            step("disconnects", lambda: client_disconnects(port))
            text = log.read_text(errors="replace")
            results["disconnects"]["tracebacks_in_log"] = text.count("Traceback")
            results["disconnects"]["error_lines_in_log"] = sum(
                1 for line in text.splitlines() if line.startswith("ERROR")
            )
    step("kill-master", lambda: kill_master(tree, workdir))
    step("stop-master", lambda: stop_master(tree, workdir))

    if wanted("stalled-write-slots"):
        with serve(tree, workdir, name="stalled", env={"BODY_TIMEOUT_SECONDS": "30"}) as (
            port,
            _p,
            _,
        ):
            step("stalled-write-slots", lambda: stalled_write_slots(port))
    if wanted("slow-game"):
        with serve(tree, workdir, name="slow") as (port, _p, _):
            database = workdir / f"slow-{port}.db"
            step("slow-game", lambda: slow_game(port, database))
    if wanted("address-flood"):
        with serve(tree, workdir, name="flood") as (port, _p, _):
            step("address-flood", lambda: address_flood(port, held=1300))
    if wanted("head-accept"):
        with serve(tree, workdir, name="negotiation") as (port, _p, _):
            step("head-accept", lambda: head_and_accept(port))
    if wanted("metrics-exposure"):
        with serve(tree, workdir, name="metrics", env={"METRICS_NETWORKS": "127.0.0.1/32"}) as (
            port,
            _p,
            _,
        ):
            step("metrics-exposure", lambda: metrics_exposure(port))
    if wanted("stream-replays"):
        # The write rate off only so that the attacker's game fills its log in seconds.
        with serve(tree, workdir, name="replays", env={"GAME_WRITE_RATE": "0"}) as (port, p, _):
            step("stream-replays", lambda: stream_replays(port, p.pid))
    if wanted("guessable-idempotency-key"):
        with serve(tree, workdir, name="weak-key") as (port, _p, _):
            step("guessable-idempotency-key", lambda: guessable_idempotency_key(port))
    if wanted("player-flips"):
        with serve(tree, workdir, name="flips") as (port, _p, _):
            step("player-flips", lambda: player_flips(port, flips=60))
        # 1,000 flips take the default rates (120 a minute for a game before, 30 for a
        # player after) 8 to 33 minutes: the rates are off to play them in seconds.
        rates_off = {"GAME_WRITE_RATE": "0", "PLAYER_WRITE_RATE": "0"}
        with serve(tree, workdir, name="flips-1000", env=rates_off) as (port, _p, _):
            results["player-flips"] |= {
                f"rates_off_{key}": value
                for key, value in player_flips(port, flips=1000).items()
                if key != "same_decision_again_logs"
            }
    return results


DESCRIPTIONS = {
    "endless-headers": "100 connections each send a header line that never ends (8 MiB each, 15 s)",
    "complete-16mb-header": "one request with a complete 16 MiB header",
    "10000-headers": "one request with 10,000 header fields",
    "pipelined": "100 connections pipeline GET /healthz (4 MiB each, 15 s), never read",
    "idle": "2,000 connections that send nothing, checked after 7 s",
    "slow-headers": "50 connections send a header line every 0.5 s (14 s)",
    "connection-limit": "MAX_CONNECTIONS=100: 100 idle connections held, 10 more ask",
    "disconnects": "20 clients send half a body, then disconnect",
    "kill-master": "--workers 2, SIGKILL the master",
    "stop-master": "--workers 2, SIGTERM the master",
    "stalled-write-slots": "3 connections send the head of a change without a token and never "
    "its body (BODY_TIMEOUT_SECONDS=30); meanwhile 9 changes of 3 other games, one after "
    "the other",
    "slow-game": "SQLite: every change of one game made slow by a trigger (about a second "
    "each with the write lock held); 8 of them at once, then 5 changes of another game",
    "address-flood": "1,300 idle connections from 127.0.0.2 (more than MAX_CONNECTIONS, "
    "1250), then GET /healthz from 127.0.0.3; defaults",
    "head-accept": "HEAD on 8 GET routes; GET of a game with Accept: application/xml and "
    "text/event-stream; a faith change with Accept: application/xml",
    "metrics-exposure": "GET /metrics from 127.0.0.2 with METRICS_NETWORKS=127.0.0.1/32 "
    "(standing for another network; the setting is new)",
    "stream-replays": "a game of 1,000 events (GAME_WRITE_RATE=0 to fill it); 1,000 "
    "`GET .../events/stream?after=0` with its token from 20 addresses, never read, held "
    "15 s; meanwhile two other games read (GET) and changed (a faith change) one request "
    "after the other; RSS in MiB, after close 5 s after the streams closed",
    "guessable-idempotency-key": "a game created with Idempotency-Key "
    "`aaaaaaaaaaaaaaaaaaaaaa`; a stranger (127.0.0.3) sends the same key and body",
    "player-flips": "player p1 flips their own period I decision 60 times (defaults), then "
    "the host resolves; the same with 1,000 flips and the write rates off (`rates_off_`); "
    "on another game, p1 sends the same decision twice (events the second one logs)",
}


COST_NOTES = [
    "What each choice adds per request or connection, in the edge protocol:",
    "",
    "- header bounds: the bytes of a request head are counted in `data_received` before",
    "  the parser sees them (a slice only when a read crosses the limit), and each field",
    "  adds two integer additions and a comparison in `on_header`;",
    "- timeouts: one timer per new connection (idle) and one per request head (header",
    "  timeout), cancelled when the head is complete; uvicorn already arms one per answer;",
    "  the send timer only exists while a client leaves answers unread;",
    "- pipeline and connection limits: one length comparison per request / connection;",
    "- after a 431 the connection lingers (up to 2 s and 1 MiB read and dropped) so that",
    "  the answer reaches the client rather than a reset.",
    "",
    "On this shared 2-core machine the rounds of one server vary by more than the",
    "difference between the two servers; the edge's cost is below what these runs resolve.",
]


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return " / ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_cell(v)}" for k, v in value.items()) or "-"
    return str(value)


def render_markdown(figures: dict[str, Any], command: str) -> str:
    """bench/ATTACKS.md: per attack, each figure before and after; then throughput."""
    before = figures.get("before", {})
    after = figures.get("after", {})
    before_label = figures.get("before_label") or "the checkout given with `--before DIR`"
    lines = [
        "# Attacks on the HTTP edge: before and after",
        "",
        f"Produced by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())},",
        f"{os.cpu_count()} cores shared with other work (figures are indicative; loopback).",
        f'"before" is {before_label};',
        '"after" is this checkout. RSS is the worker\'s VmRSS in MiB; `other_client` is a',
        "fresh client's GET /healthz during the attack (status / seconds). Each attack stops",
        "sending once the server's RSS passes the guard (1024 MiB), so peaks past it are cut.",
        "",
    ]
    for name in ATTACK_NAMES:
        if name not in after and name not in before:
            continue
        lines += [f"## {name}", "", DESCRIPTIONS.get(name, ""), ""]
        lines += ["| figure | before | after |", "| --- | --- | --- |"]
        keys = list(dict.fromkeys([*before.get(name, {}), *after.get(name, {})]))
        for key in keys:
            was = _cell(before.get(name, {}).get(key, "-"))
            now = _cell(after.get(name, {}).get(key, "-"))
            lines.append(f"| {key} | {was} | {now} |")
        lines.append("")
    throughput_figures = figures.get("throughput")
    if throughput_figures:
        lines += [
            "## Throughput: what the edge costs",
            "",
            "GET /healthz, one worker, same app; wrk with one thread; best of the rounds,",
            "the two servers interleaved. `plain-httptools` is uvicorn's own httptools",
            "protocol, `edge` the bounded subclass of `app/server/protocol.py`.",
            "",
            "| server | connections | best req/s | median req/s | every round |",
            "| --- | --- | --- | --- | --- |",
        ]
        for key, values in throughput_figures.items():
            server, conns = key.rsplit(" c", 1)
            rounds = values if isinstance(values, list) else [values]
            median = sorted(rounds)[len(rounds) // 2]
            every = ", ".join(str(v) for v in rounds)
            lines.append(f"| {server} | {conns} | {max(rounds)} | {median} | {every} |")
        lines += ["", *COST_NOTES, ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout to attack too")
    parser.add_argument(
        "--before-label", default="", help="what --before is, in the report's words"
    )
    parser.add_argument("--attacks", default=",".join(ATTACK_NAMES))
    parser.add_argument("--rss-guard", type=float, default=1024.0, help="MiB (default 1024)")
    parser.add_argument("--throughput-rounds", type=int, default=3, help="0 to skip")
    parser.add_argument("--throughput-seconds", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    parser.add_argument(
        "--from-json", type=Path, help="only render --out from figures saved with --json"
    )
    args = parser.parse_args()
    command = "python -m bench.attacks " + " ".join(sys.argv[1:])
    if args.from_json is not None:
        figures = json.loads(args.from_json.read_text())
        if args.out is not None:
            args.out.write_text(render_markdown(figures, figures.get("command", command)))
        return
    names = args.attacks.split(",")
    figures: dict[str, Any] = {"command": command, "before_label": args.before_label}
    with tempfile.TemporaryDirectory(prefix="vr-attacks-") as tmp:
        workdir = Path(tmp)
        if args.before is not None:
            print(f"before: {args.before}", flush=True)
            figures["before"] = run_attacks(args.before.resolve(), workdir, names, args.rss_guard)
        print(f"after: {REPO_ROOT}", flush=True)
        figures["after"] = run_attacks(REPO_ROOT, workdir, names, args.rss_guard)
        if (
            args.throughput_rounds
            and subprocess.run(["which", "wrk"], capture_output=True).returncode == 0
        ):
            print("throughput", flush=True)
            figures["throughput"] = throughput(
                workdir, args.throughput_rounds, args.throughput_seconds
            )
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    if args.out is not None:
        args.out.write_text(render_markdown(figures, command))


if __name__ == "__main__":
    main()
