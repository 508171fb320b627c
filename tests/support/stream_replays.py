"""Replays of a long log that are never read: many ``GET .../events/stream?after=0`` on a
game of many events, from clients that read nothing, and what other games' reads and
writes meet meanwhile. ``tests/live`` asserts on the worker's memory; ``bench/attacks.py``
reports the victims' latencies too."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.support.probes import RssSampler, rss_mib
from tests.support.raw_http import connect, status_of
from tests.support.write_starvation import CLIENT_TIMEOUT_S, Game, create_games

# One client address holds at most MAX_CONNECTIONS_PER_ADDRESS (64) connections: the
# attacker spreads its streams over loopback addresses, as many hosts would.
PER_ADDRESS = 50


def fill_log(base_url: str, game: Game, events: int) -> None:
    """Change ``game`` until its log holds ``events`` events (its creation is the first);
    the server must not rate-limit the host (GAME_WRITE_RATE=0)."""
    with httpx.Client(base_url=base_url, headers=game.auth, timeout=CLIENT_TIMEOUT_S) as http:
        for i in range(events - 1):
            response = http.put(f"{game.url}/faith", json={"faith": {"p1": i % 15 + 1}})
            response.raise_for_status()


def stream_request(game: Game, after: int = 0) -> bytes:
    return (
        f"GET {game.url}/events/stream?after={after} HTTP/1.1\r\nHost: attack\r\n"
        f"Authorization: Bearer {game.host_token}\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()


@contextlib.contextmanager
def unread_streams(port: int, game: Game, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections that ask for every event of ``game`` and never read a byte;
    closed at the end. From 127.0.0.2 on, ``PER_ADDRESS`` connections per address."""
    request = stream_request(game)
    socks: list[socket.socket] = []
    try:
        for i in range(count):
            source = f"127.0.{2 + i // PER_ADDRESS // 250}.{2 + i // PER_ADDRESS % 250}"
            with contextlib.suppress(OSError):
                sock = connect(port, timeout=5.0, source=source)
                sock.sendall(request)
                socks.append(sock)
        yield socks
    finally:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.close()


def answered(socks: list[socket.socket], wait: float = 10.0) -> Counter[str]:
    """The status each connection was answered with so far, peeked (nothing is read off
    the socket); "none" when no answer came within ``wait`` seconds in all."""
    seen: Counter[str] = Counter()
    deadline = time.monotonic() + wait
    for sock in socks:
        data = b""
        with contextlib.suppress(OSError):
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            data = sock.recv(16, socket.MSG_PEEK)
        status = status_of(data)
        seen[str(status) if status else "none"] += 1
    return seen


@dataclass
class Victims:
    """Other games' reads (GET of the game) and changes (a faith change), one after the
    other in two threads until stopped: each one's status and seconds."""

    base_url: str
    games: list[Game]
    source: str | None = None  # the address they come from (None: the system's choice)
    reads: list[tuple[int | str, float]] = field(default_factory=list)
    writes: list[tuple[int | str, float]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def _run(self, write: bool) -> None:
        out = self.writes if write else self.reads
        transport = httpx.HTTPTransport(local_address=self.source)
        with httpx.Client(
            base_url=self.base_url, timeout=CLIENT_TIMEOUT_S * 2, transport=transport
        ) as http:
            i = 0
            while not self._stop.is_set():
                game = self.games[i % len(self.games)]
                i += 1
                start = time.monotonic()
                try:
                    if write:
                        body = {"faith": {"p1": i % 15 + 1}}
                        answer = http.put(f"{game.url}/faith", json=body, headers=game.auth)
                    else:
                        answer = http.get(game.url, headers=game.auth)
                    status: int | str = answer.status_code
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                out.append((status, time.monotonic() - start))
                self._stop.wait(0.05)

    def __enter__(self) -> Victims:
        self._threads = [threading.Thread(target=self._run, args=(w,)) for w in (False, True)]
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()


def latency_figures(answers: list[tuple[int | str, float]]) -> dict[str, Any]:
    """Statuses counted, and p50 / p99 / max in milliseconds."""
    seconds = sorted(s for _, s in answers)
    if not seconds:
        return {"statuses": {}, "p50_ms": None, "p99_ms": None, "max_ms": None}

    def at(q: float) -> float:
        return round(seconds[min(len(seconds) - 1, int(q * len(seconds)))] * 1000, 1)

    return {
        "statuses": dict(Counter(str(status) for status, _ in answers)),
        "p50_ms": at(0.5),
        "p99_ms": at(0.99),
        "max_ms": round(seconds[-1] * 1000, 1),
    }


def replay_flood(
    port: int,
    pid: int,
    *,
    streams: int = 1000,
    events: int = 1000,
    hold_seconds: float = 15.0,
    settle_seconds: float = 5.0,
) -> dict[str, Any]:
    """A game of ``events`` events; ``streams`` unread replays of it from event 1, held
    ``hold_seconds`` after they are all open, while two other games are read and changed
    one request after the other. The worker's RSS before, at its peak and
    ``settle_seconds`` after the streams closed; the victims' statuses and latencies."""
    base_url = f"http://127.0.0.1:{port}"
    target, *others = create_games(base_url, 3)
    fill_log(base_url, target, events)
    time.sleep(1.0)
    before = rss_mib(pid)
    with RssSampler(pid) as sampler, Victims(base_url, others) as victims:
        opened_at = time.monotonic()
        with unread_streams(port, target, streams) as socks:
            opened_s = time.monotonic() - opened_at
            time.sleep(hold_seconds)
            statuses = answered(socks)
            held = rss_mib(pid)
        time.sleep(1.0)
    time.sleep(settle_seconds)
    return {
        "rss_before_mib": round(before, 1),
        "rss_peak_mib": round(sampler.peak, 1),
        "rss_held_mib": round(held, 1),
        "rss_after_close_mib": round(rss_mib(pid), 1),
        "streams_opened_s": round(opened_s, 1),
        "stream_answers": dict(statuses),
        "other_reads": latency_figures(victims.reads),
        "other_writes": latency_figures(victims.writes),
    }
