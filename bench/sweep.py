"""How long the retention sweep's read of a batch takes on SQLite, in the write
transaction it runs in, over a table of games none of which is idle (the usual case: it
finds nothing), against the number of games.

    python -m bench.sweep                           # 20,000 games
    python -m bench.sweep --checkout /tmp/ab/base   # A/B: a worktree of another commit

The games are inserted as rows (no request), each with a 2.5 KB document as a real one
has, all changed now; the sweep asks for games idle for 30 days, five times.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _measure(games: int) -> None:
    import sqlite3
    import time
    from datetime import UTC, datetime, timedelta

    from app.persistence.db import Database
    from app.persistence.migrate import upgrade
    from app.persistence.repositories import GameRepository

    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/sweep.db"
        upgrade(f"sqlite:///{path}")
        now = datetime.now(UTC)
        stored = now.strftime("%Y-%m-%d %H:%M:%S.%f")  # as SQLAlchemy writes it
        with sqlite3.connect(path) as connection:
            columns = {row[1] for row in connection.execute("PRAGMA table_info(games)")}
            row = {
                "version": 1,
                "state": "{}",
                "document": "x" * 2500,
                "host_token_hash": "h" * 64,
                "created_at": stored,
                "updated_at": stored,
                "player_token_hashes": "{}",
            }
            if "updated_hour" in columns:  # a tree before it has neither column nor hour_of
                from app.persistence.tables import hour_of

                row["updated_hour"] = hour_of(now)
            names = ", ".join(["id", *row])
            marks = ", ".join("?" * (len(row) + 1))
            connection.executemany(
                f"INSERT INTO games ({names}) VALUES ({marks})",
                ((f"{n:032x}", *row.values()) for n in range(games)),
            )
        database = Database(f"sqlite:///{path}")
        try:
            times = []
            for _ in range(5):
                with database.transaction(write=True) as transaction:
                    started = time.perf_counter()
                    GameRepository(transaction).idle_since(now - timedelta(days=30), 500, lock=True)
                    times.append(time.perf_counter() - started)
        finally:
            database.dispose()
    print(f"  {games} games: " + ", ".join(f"{t * 1e3:.2f} ms" for t in times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=REPO)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _measure(args.games)
        return
    print(f"the sweep's read, {args.checkout}:", flush=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--measure"]
    env = {**os.environ, "PYTHONPATH": str(args.checkout)}
    subprocess.run([*command, "--games", str(args.games)], env=env, cwd=args.checkout, check=True)


if __name__ == "__main__":
    main()
