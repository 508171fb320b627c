"""Profile the served app under wrk load with py-spy (sampling, no code change).

    python -m bench.profile --scenario get-game --db sqlite --seconds 8
    python -m bench.profile --scenario calc-gains

Writes a speedscope profile and a collapsed-stack file to bench/profiles/ (not
committed), and prints the share of samples spent in each cost bucket (inclusive: a
sample counts for every bucket one of its frames matches) and the top own-time functions.
Needs py-spy (``pip install py-spy``) and ptrace rights (root, or CAP_SYS_PTRACE).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

from bench.harness import (
    DEFAULT_PG_SERVER,
    REPO,
    app_command,
    fresh_database,
    run_wrk,
    serve,
    workdir,
)
from bench.scenarios import BY_NAME
from bench.seeding import seed
from tests.support.servers import free_port

# Cost buckets: a name and the substrings of a frame ("function (file:line)") that mark it.
BUCKETS: dict[str, tuple[str, ...]] = {
    "front (request id, routing, metrics, access line)": (
        "app/api/platform/front.py",
        "app/api/platform/route_table.py",
        "app/api/platform/request_log.py",
    ),
    "access log (logging + json.dumps)": ("logging/__init__.py", "json/encoder.py"),
    "prometheus metrics": ("prometheus_client",),
    "request validation (pydantic)": ("_validate_request", "request_body_to_args"),
    "fastapi dependencies (solve_dependencies)": ("solve_dependencies",),
    "threadpool hand-off (anyio to_thread)": ("to_thread.py", "run_in_threadpool"),
    "SQLAlchemy ORM loading": ("sqlalchemy/orm/loading.py", "strategies.py"),
    "SQLAlchemy statement compile/cache": ("sqlalchemy/sql/compiler.py", "_compile_w_cache"),
    "SQL execution (driver round trips)": ("do_execute", "cursor.execute", "psycopg/cursor.py"),
    "JSON columns (json.loads)": ("json/decoder.py", "json/__init__.py"),
    "transaction begin/commit": ("_begin_impl", "_commit_impl", "_rollback_impl"),
    "connection pool checkout/checkin": ("sqlalchemy/pool/",),
    "token check (sha256 + compare)": ("services/access.py", "services/tokens.py"),
    "presenting (game_read, pydantic models)": ("app/api/presenters.py",),
    "response serialisation (to_json)": ("schemas/base.py",),
    "domain rules": ("app/domain/",),
    "uvicorn/httptools protocol": ("httptools_impl.py",),
    "event loop (uvloop/asyncio)": ("uvloop", "asyncio/"),
}


def parse_collapsed(path: Path) -> tuple[Counter[str], Counter[str], int]:
    buckets: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = stack.split(";")
        total += count
        own[frames[-1]] += count
        for name, marks in BUCKETS.items():
            if any(mark in frame for frame in frames for mark in marks):
                buckets[name] += count
    return buckets, own, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    served = [s.name for s in BY_NAME.values() if s.server == "service" and not s.in_app]
    parser.add_argument("--scenario", default="get-game", choices=served)
    parser.add_argument("--db", default="sqlite", choices=["sqlite", "postgres"])
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--pg-server", default=DEFAULT_PG_SERVER)
    args = parser.parse_args()
    py_spy = shutil.which("py-spy")
    if py_spy is None:
        sys.exit("py-spy is missing: pip install py-spy")
    out_dir = REPO / "bench" / "profiles"
    out_dir.mkdir(exist_ok=True)
    scenario = BY_NAME[args.scenario]
    tmp = workdir()
    with fresh_database(args.db, args.pg_server, tmp) as url:
        port = free_port()
        env = {"DATABASE_URL": url, "LOG_LEVEL": args.log_level}
        with serve(app_command(port, 1), env, port, tmp / "server.log") as server:
            files = {"threads": "1", "rows": "1"}
            for name, count, faith in (("games", 200, False), ("decide", 200, True)):
                if f"{{{name}}}" in scenario.load.args:
                    seed(server.base_url, count, faith, name, tmp / f"{name}.lua")
                    files[name] = str(tmp / f"{name}.lua")
            if "{resolve}" in scenario.load.args:
                seed(server.base_url, 1500, True, "games", tmp / "r.lua")
                files["resolve"] = str(tmp / "r.lua")
            wrk_args = [a.format(**files) for a in scenario.load.args]
            script = scenario.load.script
            run_wrk(server.base_url, script, wrk_args, args.connections, 1)
            stem = out_dir / f"{args.scenario}-{args.db}"
            collapsed = stem.with_suffix(".collapsed.txt")
            spy = [py_spy, "record", "--pid", str(server.pid), "--rate", str(args.rate)]
            spy += ["--duration", str(args.seconds), "--nonblocking"]
            results = {}

            def load() -> None:
                results["wrk"] = run_wrk(
                    server.base_url, script, wrk_args, args.connections, args.seconds
                )

            driver = threading.Thread(target=load)
            driver.start()
            subprocess.run([*spy, "--format", "raw", "-o", str(collapsed)], check=True)
            driver.join()
    wrk = results["wrk"]
    print(
        f"\n{args.scenario} on {args.db}, {args.connections} connections: "
        f"{wrk.rps:.0f} req/s, p50 {wrk.p50_ms:.2f} ms, p99 {wrk.p99_ms:.2f} ms "
        f"(under py-spy, so slower than unprofiled)"
    )
    buckets, own, total = parse_collapsed(collapsed)
    print(f"\n{total} samples (all threads, idle included); inclusive share per bucket:")
    for name, count in buckets.most_common():
        print(f"  {count / total:6.1%}  {name}")
    print("\ntop own-time frames:")
    for frame, count in own.most_common(15):
        print(f"  {count / total:6.1%}  {frame[:130]}")
    print(f"\ncollapsed stacks: {collapsed}")


if __name__ == "__main__":
    main()
