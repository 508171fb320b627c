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
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from bench.attacks_report import ATTACK_NAMES, render_markdown
from bench.edge_attacks import (
    head_and_accept,
    idle_connections,
    metrics_exposure,
    request_flood,
    slow_game,
    slow_headers,
    stalled_write_slots,
    stream_replays,
)
from bench.edge_cost import throughput
from bench.game_attacks import (
    guessable_idempotency_key,
    keyed_nothing,
    player_flips,
    recovery_codes,
)
from bench.harness import DEFAULT_PG_SERVER, fresh_database
from tests.support.edge_attacks import (
    address_flood,
    client_disconnects,
    complete_huge_header,
    endless_headers,
    many_headers,
    over_connection_limit,
    pipelined_unread,
)
from tests.support.probes import alive, children_of, cmdline
from tests.support.servers import REPO_ROOT, Server, running

# Servers


@contextlib.contextmanager
def serve(
    tree: Path,
    workdir: Path,
    *,
    workers: int = 1,
    env: dict[str, str] | None = None,
    name: str = "server",
    database_url: str | None = None,
) -> Iterator[tuple[int, subprocess.Popen[bytes], Path]]:
    """``python -m app`` from ``tree`` on a free port, fresh SQLite database (or
    ``database_url``'s), the settings' own rate limits, log level info; yields the port,
    the process and its log path."""
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
    server.database_url = database_url or f"sqlite:///{workdir}/{name}-{server.port}.db"
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


# Runner


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
        # The write rate off only so that the attacker's game fills its log in seconds; the
        # seat's bound off so that one token stands for the thousand seats (over as many
        # games) an attacker would need to hold a thousand replays at once.
        replays = {"GAME_WRITE_RATE": "0", "MAX_STREAMS_PER_SEAT": "1000"}
        with serve(tree, workdir, name="replays", env=replays) as (port, p, _):
            step("stream-replays", lambda: stream_replays(port, p.pid))
    if wanted("request-flood"):
        with serve(tree, workdir, name="request-flood") as (port, proc, _):
            step("request-flood", lambda: request_flood(port, proc.pid, workdir))
    if wanted("proxied-flood"):
        proxy = {"TRUSTED_PROXIES": "127.0.0.1/32"}
        with serve(tree, workdir, name="proxied-flood", env=proxy) as (port, proc, _):
            step(
                "proxied-flood",
                lambda: request_flood(port, proc.pid, workdir, forwarded_for="203.0.113.7"),
            )
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
    for name, keyed in (("recovery-codes", False), ("recovery-codes-keyed", True)):
        if not wanted(name):
            continue
        # PostgreSQL: its changes hold a write slot across their round trips (on SQLite a
        # change runs on the event loop in one go, so that what it holds is never waited on),
        # and its keyed changes a request thread.
        with (
            fresh_database("postgres", DEFAULT_PG_SERVER, workdir) as url,
            serve(tree, workdir, name=name, env={"GAME_WRITE_RATE": "0"}, database_url=url) as (
                port,
                _p,
                _,
            ),
        ):
            step(
                name,
                partial(recovery_codes, port, strangers=32, rate=10, seconds=10, keyed=keyed),
            )
    if wanted("keyed-nothing"):
        with serve(tree, workdir, name="keyed") as (port, _p, _):
            database = workdir / f"keyed-{port}.db"
            step("keyed-nothing", lambda: keyed_nothing(port, database, requests=500))
    return results


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
        saved = json.loads(args.from_json.read_text())
        if args.out is not None:
            args.out.write_text(render_markdown(saved, saved.get("command", command)))
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
