"""The goals of "reads and writes at the limit of the stack", checked against runs of
``python -m bench.run --json``: one row per goal, every cell's ratio, met or not.

    python -m bench.goals bench/out/run1.json bench/out/run2.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# (goal, scenario, its ceiling, the least ratio)
RATIO_GOALS = [
    ("`GET` game >= 0.8 of `read-ceiling`", "get-game", "read-ceiling", 0.8),
    ("conditional `GET` (304) >= 0.9 of it", "get-game-304", "read-ceiling", 0.9),
    ("`PUT` faith >= 0.5 of `txn-ceiling`", "put-faith", "txn-ceiling", 0.5),
    ("`PUT` decisions >= 0.5 of it", "put-decision", "txn-ceiling", 0.5),
    ("resolve-report >= 0.35 of it", "resolve-report", "txn-ceiling", 0.35),
    ("calc-gains >= 0.55 of `/healthz`", "calc-gains", "healthz", 0.55),
    ("calc-final-scores >= 0.55 of it", "calc-final-scores", "healthz", 0.55),
]
STORED = ("get-game", "get-game-304", "put-faith", "put-decision", "resolve-report")
DATABASES = ("sqlite", "postgres")


# A run's cells by (database, scenario, connections); a cell is one of its JSON objects.
Run = dict[tuple[str, str, int], dict[str, Any]]


def _rps(cell: dict[str, Any]) -> float:
    result: dict[str, float] = cell["result"]  # a WrkResult's fields, all numbers
    return result["requests"] / result["duration_s"]


def _ratio(run: Run, db: str, scenario: str, ceiling: str, conns: int) -> float:
    """To the ceiling interleaved with the cell (runs 6 to 10 with ``--interleave``), else
    to the ceiling's own row. These goals are to the in-app ceilings, which runs since the
    frozen ceilings have only with ``--in-app``."""
    cell = run[db, scenario, conns]
    ceiling_rps: float | None = cell.get("ceiling_rps")
    if ceiling_rps:
        return _rps(cell) / ceiling_rps
    if (db, ceiling, conns) not in run:
        sys.exit(f"{ceiling} is not in this run: these goals are to the in-app ceilings (--in-app)")
    return _rps(cell) / _rps(run[db, ceiling, conns])


def report(paths: list[Path]) -> None:
    runs: list[Run] = [
        {(c["db"], c["scenario"], c["connections"]): c for c in json.loads(p.read_text())["cells"]}
        for p in paths
    ]
    print(f"Ratios as {' / '.join(f'run {i + 1}' for i in range(len(runs)))}.\n")
    print("| goal | SQLite | PostgreSQL | met? |")
    print("|---|---|---|---|")
    for goal, scenario, ceiling, least in RATIO_GOALS:
        texts, met, cells = [], 0, 0
        for db in DATABASES:
            parts = []
            for conns in (1, 64):
                ratios = [_ratio(r, db, scenario, ceiling, conns) for r in runs]
                met += sum(ratio >= least for ratio in ratios)
                cells += len(ratios)
                parts.append(f"c={conns} " + " / ".join(f"{ratio:.0%}" for ratio in ratios))
            texts.append(", ".join(parts))
        verdict = "yes" if met == cells else f"in {met} of {cells} cells" if met else "no"
        print(f"| {goal} | {texts[0]} | {texts[1]} | {verdict} |")
    rss = {
        db: [c["rss_max_mib"] for r in runs for k, c in r.items() if k[0] == db] for db in DATABASES
    }
    worst = max(max(v) for v in rss.values())
    print(
        f"| one worker <= 100 MiB RSS under 64 connections | {min(rss['sqlite']):.1f}-"
        f"{max(rss['sqlite']):.1f} MiB | {min(rss['postgres']):.1f}-{max(rss['postgres']):.1f}"
        f" MiB | {'yes' if worst <= 100 else 'no'} |"
    )
    # From unsliced cells only: a sliced cell's p99 counts every slice's connection burst.
    spreads = {
        db: [
            cell["result"]["p99_ms"] / cell["result"]["p50_ms"]
            for r in runs
            for s in STORED
            if (cell := r[db, s, 64]).get("slices", 1) == 1
        ]
        for db in DATABASES
    }
    if all(spreads.values()):
        worst = max(max(v) for v in spreads.values())
        print(
            f"| p99 <= 3x p50 at 64 connections, every stored route (unsliced cells) "
            f"| {min(spreads['sqlite']):.1f}-{max(spreads['sqlite']):.1f} "
            f"| {min(spreads['postgres']):.1f}-{max(spreads['postgres']):.1f} "
            f"| {'yes' if worst <= 3 else 'no'} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="files written by bench.run --json")
    report(parser.parse_args().runs)


if __name__ == "__main__":
    main()
