"""What a change of a stored game writes, in process: on SQLite the write system calls and
bytes it costs the process (its WAL frames, and their share of the checkpoints that copy
them to the database file); on PostgreSQL how many of the games' row updates were
heap-only (no index touched) and the size of the games' indexes after.

    python -m bench.write_volume                          # SQLite, 1,000 games, 3,000 changes
    python -m bench.write_volume --db postgres
    python -m bench.write_volume --checkout /tmp/ab/base  # A/B: a worktree of another commit

The app of ``--checkout`` is driven as an ASGI app (``bench.instructions``' drive: PUTs of
a player's Faith, taking turns over the games), once with no change and once with N; on
SQLite the difference over N is one change's, read from ``/proc/self/io``
(``syscw``, ``wchar``). Counts, not times: the same code and inputs give about the same
figures whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _own_writes() -> tuple[int, int]:
    """This process's write system calls and the bytes they were given, so far."""
    fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return int(fields["syscw"]), int(fields["wchar"])


def _drive(changes: int, games: int, url: str | None) -> None:
    from bench.instructions import drive

    drive("put-faith", changes, url, games=games)
    calls, written = _own_writes()
    print(json.dumps({"calls": calls, "bytes": written}))


def _run(checkout: Path, changes: int, games: int, url: str | None) -> dict[str, int]:
    command = [sys.executable, str(Path(__file__).resolve()), "--drive", str(changes)]
    command += ["--games", str(games), *(["--url", url] if url else [])]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(checkout)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=checkout)
    if done.returncode:
        raise SystemExit(f"driving {checkout} failed:\n{done.stderr[-2000:]}")
    result: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _postgres(checkout: Path, changes: int, games: int, server: str | None) -> None:
    import psycopg

    from bench.harness import DEFAULT_PG_SERVER, fresh_database

    folder = Path(tempfile.gettempdir())
    with fresh_database("postgres", server or DEFAULT_PG_SERVER, folder) as url:
        _run(checkout, changes, games, url)
        # The app's connections sent their counts when they closed, at the end of the drive.
        with psycopg.connect(url) as connection:
            updated, heap_only, indexes = connection.execute(
                "SELECT n_tup_upd, n_tup_hot_upd, pg_indexes_size('games')"
                " FROM pg_stat_user_tables WHERE relname = 'games'"
            ).fetchone() or (0, 0, 0)
    print(
        f"postgres, {checkout}: {updated} updates of games' rows, {heap_only} heap-only "
        f"({heap_only / max(updated, 1):.0%}); games' indexes {indexes / 1024:.0f} KiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=REPO)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--pg-server", help="default: bench/harness.py's")
    parser.add_argument("--changes", type=int, default=3000)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--drive", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive is not None:
        _drive(args.drive, args.games, args.url)
        return
    if args.db == "postgres":
        _postgres(args.checkout, args.changes, args.games, args.pg_server)
        return
    print(f"sqlite, {args.checkout}: {args.games} games, driving...", flush=True)
    none = _run(args.checkout, 0, args.games, None)
    some = _run(args.checkout, args.changes, args.games, None)
    calls = (some["calls"] - none["calls"]) / args.changes
    kib = (some["bytes"] - none["bytes"]) / args.changes / 1024
    print(f"  per change: {calls:.2f} write calls, {kib:.2f} KiB written")


if __name__ == "__main__":
    main()
