"""A cell of the load table: one scenario at one connection count, against the service and
against each of its references, and the table's rows."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field

from bench.harness import RssSampler, WrkResult, run_wrk
from bench.scenarios import Load, Scenario
from tests.support.servers import Launched


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
