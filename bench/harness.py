"""What every benchmark needs: throwaway databases, a served app, wrk, and worker RSS.
Everything runs on 127.0.0.1 and every load is bounded in time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.servers import RATE_LIMITS_OFF, REPO_ROOT, Command, running

REPO = REPO_ROOT
LUA = REPO / "bench" / "lua"
DEFAULT_PG_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"

WRK_MISSING = (
    "wrk is not installed. On Debian/Ubuntu: `apt-get update && apt-get install -y wrk` "
    "(https://github.com/wg/wrk)."
)


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (the nearest rank); nan if none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def require_wrk() -> str:
    found = shutil.which("wrk")
    if found is None:
        sys.exit(WRK_MISSING)
    return found


# ---- databases ---------------------------------------------------------------------------


@contextmanager
def fresh_database(kind: str, pg_server: str, workdir: Path) -> Iterator[str]:
    """A new empty database of ``kind`` ("sqlite" or "postgres"), removed afterwards."""
    if kind == "sqlite":
        path = workdir / f"bench-{uuid.uuid4().hex[:8]}.db"
        try:
            yield f"sqlite:///{path}"
        finally:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        return
    name = f"vr_bench_{uuid.uuid4().hex[:8]}"
    create_pg_database(pg_server, name)
    try:
        yield pg_url(pg_server, name)
    finally:
        drop_pg_database(pg_server, name)


def pg_url(server: str, name: str) -> str:
    base, _, _ = server.rpartition("/")
    return f"{base}/{name}"


def create_pg_database(server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_pg_database(server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


# ---- servers -----------------------------------------------------------------------------

#: What a served benchmark runs with unless its ``env`` says otherwise. Every load comes
#: from 127.0.0.1, one address: a load of 64 connections that starts as the last one ends
#: finds some of the last one's connections not yet closed by the worker, and the edge's
#: per-address limit (64 by default) answers the newcomers past it a 503 (bench/RESULTS.md,
#: eleventh round). The limit's check still runs on every connection, at the same cost;
#: only its threshold is moved out of the loads' way. So is the request rate per address's:
#: its bookkeeping runs for every request, and no request waits.
BENCH_SETTINGS = {
    **RATE_LIMITS_OFF,
    "MAX_CONNECTIONS_PER_ADDRESS": "1000",
    "REQUEST_RATE_PER_ADDRESS": "60000000",
}


@contextmanager
def serve(
    command: Sequence[str],
    env: dict[str, str],
    port: int,
    log: Path,
    ready_path: str = "/readyz",
    timeout: float = 60.0,
    cwd: Path = REPO,
) -> Iterator[Command]:
    """``command`` (which listens on ``port``) until ``ready_path`` answers 200, stopped
    with its process group on exit: tests/support's launcher, with the rate limits off
    and the per-address connection limit out of the way unless ``env`` asks for them
    (the benchmarks measure throughput: ``BENCH_SETTINGS``)."""
    server = Command(
        command,
        log.stem,
        log,
        port=port,
        ready_path=ready_path,
        cwd=cwd,
        env={**BENCH_SETTINGS, **env},
    )
    with running(server, timeout=timeout):
        yield server


def app_command(port: int, workers: int) -> list[str]:
    """The documented way: ``python -m app --host --port --workers``."""
    return [
        sys.executable,
        "-m",
        "app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]


def in_app_command(port: int, workers: int) -> list[str]:
    """bench/in_app.py: the service's app with its in-app probe routes, served as
    ``python -m app`` serves it."""
    return [sys.executable, "-m", "bench.in_app", str(port), str(workers)]


def ceiling_command(name: str, port: int) -> list[str]:
    """One frozen ceiling of bench/ceilings/ (``bare``, ``bare-read``, ``bare-write``)."""
    return [sys.executable, "-m", "bench.ceilings.serve", name, str(port)]


# ---- RSS ---------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def process_tree(pid: int) -> list[int]:
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo += _children(current)
    return tree


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def cpu_seconds(pid: int) -> tuple[float, float]:
    """The process's CPU time so far, user and system (``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def server_rss(pid: int) -> dict[int, int]:
    """VmRSS (KiB) of the server and its worker processes (not helper processes such as
    multiprocessing's resource tracker)."""
    return {
        p: rss_kib(p)
        for p in process_tree(pid)
        if "resource_tracker" not in _cmdline(p) and rss_kib(p) > 0
    }


@dataclass
class RssSampler:
    """Samples the server's RSS every ``interval`` seconds in a background thread."""

    pid: int
    interval: float = 0.5
    # Long runs: print "label: N s, RSS x MiB" every ``progress_every`` seconds.
    progress_label: str | None = None
    progress_every: float = 60.0
    samples: list[tuple[float, dict[int, int]]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> RssSampler:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        start = time.monotonic()
        next_report = self.progress_every
        while not self._stop.is_set():
            elapsed, rss = time.monotonic() - start, server_rss(self.pid)
            self.samples.append((elapsed, rss))
            if self.progress_label is not None and elapsed >= next_report:
                mib = sum(rss.values()) / 1024
                print(f"    {self.progress_label}: {elapsed:.0f} s, RSS {mib:.1f} MiB", flush=True)
                next_report += self.progress_every
            self._stop.wait(self.interval)

    def max_total_mib(self) -> float:
        return max((sum(s.values()) for _, s in self.samples), default=0) / 1024

    def max_process_mib(self) -> float:
        return max((max(s.values(), default=0) for _, s in self.samples), default=0) / 1024


# ---- wrk ---------------------------------------------------------------------------------


@dataclass
class WrkResult:
    requests: int
    duration_s: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    non2xx: int
    socket_errors: int

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s if self.duration_s else 0.0


def run_wrk(*args: Any, **kwargs: Any) -> WrkResult:
    """One bounded wrk run (the arguments of :func:`wrk_summary`), as a ``WrkResult``."""
    data = wrk_summary(*args, **kwargs)
    return WrkResult(
        requests=data["requests"],
        duration_s=data["duration_us"] / 1e6,
        p50_ms=data["p50_us"] / 1000,
        p99_ms=data["p99_us"] / 1000,
        max_ms=data["max_us"] / 1000,
        non2xx=data["non2xx"],
        socket_errors=data["socket_errors"],
    )


def wrk_summary(
    url: str,
    script: str,
    args: Sequence[str],
    connections: int,
    duration: float,
    threads: int = 1,
    timeout_s: int = 10,
) -> dict[str, Any]:
    """One bounded wrk run; ``script`` is a file of bench/lua, ``args`` its arguments. The
    line ``bench/lua/common.lua`` prints, as it prints it (times in microseconds, p99.9
    included)."""
    command = [
        require_wrk(),
        f"-t{min(threads, connections)}",
        f"-c{connections}",
        f"-d{max(1, round(duration))}s",
        f"--timeout={timeout_s}s",
        "-s",
        str(LUA / script),
        url,
        "--",
        *args,
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=duration + timeout_s + 30, check=False
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith('{"requests"')), None)
    if line is None:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stdout}\n{done.stderr}")
    return dict(json.loads(line))


def workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="vr-bench-"))


def machine() -> dict[str, str]:
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
    load = Path("/proc/loadavg").read_text().split()[:3]
    return {
        "nproc": str(os.cpu_count()),
        "cpu": model,
        "memory": f"{int(mem) / 1024 / 1024:.1f} GiB",
        "loadavg": " ".join(load),
        "python": sys.version.split()[0],
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
