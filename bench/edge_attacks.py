"""Attacks on the HTTP edge that only the bench runs (``bench.attacks`` groups them
with the ones tests/edge asserts on, which are tests/support's). Each takes the server's
port (and pid) and returns a dict of figures."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from bench.harness import cpu_seconds, run_wrk
from bench.seeding import write_lua_data
from tests.support.probes import open_fds
from tests.support.raw_http import ask, connect, status_of
from tests.support.stream_replays import Victims, latency_figures, replay_flood
from tests.support.write_starvation import (
    create_games,
    make_changes_slow,
    stalled_bodies,
    stuck_game_storm,
    summary,
)


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
        figures |= _flat(victims, figures.pop(victims))
    return figures


def request_flood(
    port: int, pid: int, workdir: Path, seconds: int = 15, forwarded_for: str | None = None
) -> dict[str, Any]:
    """One address (127.0.0.1) floods reads of its own game with its token, as fast as
    64 connections go (wrk), while another address (127.0.0.3) reads and changes two
    other games one request after the other: what each got, and the CPU the server
    process spent meanwhile. With ``forwarded_for``, 127.0.0.1 is a trusted proxy (the
    server's TRUSTED_PROXIES) forwarding the flood for that client. The games are created
    from a third address (127.0.0.2): a connection of the flood's own address, closed a
    moment before the flood's 64 open, can still count against its connection cap (64),
    and one of them be refused."""
    base_url = f"http://127.0.0.1:{port}"
    target, *others = create_games(base_url, 3, source="127.0.0.2")
    games = workdir / f"flood-{port}.lua"
    write_lua_data([[target.id, target.host_token, []]], games)
    cpu_before = sum(cpu_seconds(pid))
    with Victims(base_url, others, source="127.0.0.3") as victims:
        script_args = [str(games)] + (["", forwarded_for] if forwarded_for else [])
        flood = run_wrk(base_url, "get_game.lua", script_args, 64, seconds)
    figures: dict[str, Any] = {
        "flood_answered": flood.requests,
        "flood_answered_per_s": round(flood.rps),
        "flood_not_2xx": flood.non2xx,
        "server_cpu_s": round(sum(cpu_seconds(pid)) - cpu_before, 1),
    }
    return (
        figures
        | _flat("other_reads", latency_figures(victims.reads))
        | _flat("other_writes", latency_figures(victims.writes))
    )


def _flat(prefix: str, figures: dict[str, Any]) -> dict[str, Any]:
    """``figures`` as figures of their own row each, named after ``prefix``."""
    return {f"{prefix}_{key}": value for key, value in figures.items()}
