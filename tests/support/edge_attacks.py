"""The attacks on the HTTP edge that the tests in ``tests/edge`` assert on and
``bench/attacks.py`` measures. Each takes the server's port (and the worker's pid when it
watches memory) and returns a dict of figures; each is bounded in time and bytes."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from typing import Any

import httpx

from tests.support.probes import RssSampler, paused, probe, rss_mib, served_within
from tests.support.raw_http import MIB, Flood, connect, read_all, status_of


def endless_headers(
    port: int,
    pid: int,
    *,
    connections: int = 100,
    per_connection: int = 8 * MIB,
    seconds: float = 15.0,
    rss_guard: float = 1024.0,
) -> dict[str, Any]:
    """``connections`` clients each send a header line that never ends."""
    flood = Flood(
        port,
        pid,
        connections,
        b"GET /healthz HTTP/1.1\r\nHost: attack\r\nX-Endless: ",
        b"a" * 65536,
        per_connection,
        seconds,
        rss_guard,
    )
    return _flood_figures(flood, port, pid, with_answers=True)


def pipelined_unread(
    port: int,
    pid: int,
    *,
    connections: int = 100,
    per_connection: int = 4 * MIB,
    seconds: float = 15.0,
    rss_guard: float = 1024.0,
) -> dict[str, Any]:
    """``connections`` clients each pipeline GET requests and never read an answer."""
    request = b"GET /healthz HTTP/1.1\r\nHost: attack\r\n\r\n"
    flood = Flood(port, pid, connections, b"", request * 1600, per_connection, seconds, rss_guard)
    return _flood_figures(flood, port, pid, with_answers=False)


def _flood_figures(flood: Flood, port: int, pid: int, *, with_answers: bool) -> dict[str, Any]:
    """Run ``flood`` while sampling the worker's RSS and probing with another client; the
    figures of both flood attacks (and the attackers' answers when ``with_answers``)."""
    before = rss_mib(pid)
    with RssSampler(pid) as sampler:
        flood.run()
        other = probe(port)
        answers = flood.answers() if with_answers else None
        flood.close()
    time.sleep(1.0)
    figures: dict[str, Any] = {
        "rss_before_mib": round(before, 1),
        "rss_peak_mib": round(sampler.peak, 1),
        "rss_after_close_mib": round(rss_mib(pid), 1),
        "sent_mib": round(flood.sent / MIB, 1),
    }
    if with_answers:
        figures["attackers_cut"] = flood.refused
        figures["attacker_answers"] = answers
    figures["rss_guard_hit"] = flood.guard_hit
    figures["other_client"] = other
    return figures


def complete_huge_header(port: int, *, size: int = 16 * MIB) -> dict[str, Any]:
    """One request with a ``size``-byte header, complete; the answer's status."""
    sock = connect(port)
    head = b"GET /healthz HTTP/1.1\r\nHost: attack\r\nX-Huge: "
    tail = b"\r\n\r\n"
    answer: list[bytes] = []
    reader = threading.Thread(target=lambda: answer.append(read_all(sock, 65536, 20.0)))
    reader.start()
    with contextlib.suppress(OSError):
        sock.sendall(head)
        chunk = b"a" * 65536
        for _ in range(size // len(chunk)):
            sock.sendall(chunk)
        sock.sendall(tail)
    reader.join()
    sock.close()
    return {"status": status_of(answer[0] if answer else b"")}


def many_headers(port: int, *, count: int = 10_000) -> dict[str, Any]:
    """One request with ``count`` header fields; the answer's status."""
    sock = connect(port)
    fields = b"".join(b"X-F%d: v\r\n" % i for i in range(count))
    answer: list[bytes] = []
    reader = threading.Thread(target=lambda: answer.append(read_all(sock, 65536, 20.0)))
    reader.start()
    with contextlib.suppress(OSError):
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: attack\r\n" + fields + b"\r\n")
    reader.join()
    sock.close()
    return {"status": status_of(answer[0] if answer else b"")}


def over_connection_limit(port: int, *, held: int, extra: int = 10) -> dict[str, Any]:
    """Hold ``held`` idle connections, then send a request on ``extra`` more."""
    holders = [connect(port) for _ in range(held)]
    statuses: dict[str, int] = {}
    retry_after = None
    problem_type = None
    try:
        for _ in range(extra):
            sock = connect(port)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: attack\r\nConnection: close\r\n\r\n")
            data = read_all(sock, 65536, 5.0)
            sock.close()
            status = status_of(data)
            statuses[str(status)] = statuses.get(str(status), 0) + 1
            head, _, body = data.partition(b"\r\n\r\n")
            found = re.search(rb"(?im)^retry-after: *(\d+)", head)
            if found:
                retry_after = int(found.group(1))
            with contextlib.suppress(ValueError):
                problem_type = json.loads(body).get("type")
    finally:
        for sock in holders:
            sock.close()
    return {"statuses": statuses, "retry_after": retry_after, "problem_type": problem_type}


def client_disconnects(port: int, *, count: int = 20) -> dict[str, Any]:
    """Clients that send half a body and go away; what /metrics counted for the route."""
    for _ in range(count):
        sock = connect(port)
        sock.sendall(
            b"POST /v1/calculations/vatican-report HTTP/1.1\r\nHost: attack\r\n"
            b'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{"period"'
        )
        time.sleep(0.05)
        sock.close()
    time.sleep(1.0)
    metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    counted = {
        status: float(value)
        for status, value in re.findall(
            r'http_requests_total\{method="POST",route="/v1/calculations/vatican-report",'
            r'status="(\d+)"\} ([0-9.e+]+)',
            metrics,
        )
    }
    return {"counted_by_status": counted}


def connection_burst(
    port: int, pid: int, *, addresses: int = 40, per_address: int = 50
) -> dict[str, Any]:
    """``addresses`` x ``per_address`` idle connections (each address under its cap) that
    reach a stopped worker together, as a busy worker meets them: the worker's RSS before,
    at its peak while it takes them all, and a fresh client's status while they are held
    and once they are gone."""
    before = rss_mib(pid)
    socks = []
    try:
        with paused(pid) as resume:
            for index in range(addresses):
                for _ in range(per_address):
                    with contextlib.suppress(OSError):
                        socks.append(connect(port, timeout=5.0, source=f"127.0.1.{index + 1}"))
            with RssSampler(pid) as sampler:
                resume()
                while_held = probe(port)[0]
    finally:
        for sock in socks:
            sock.close()
    return {
        "connected": len(socks),
        "rss_before_mib": round(before, 1),
        "rss_peak_mib": round(sampler.peak, 1),
        "other_while_held": while_held,
        # A connection counts until the worker has seen it close: give it a moment.
        "other_once_closed": served_within(port, 10.0),
    }


def address_flood(
    port: int,
    *,
    held: int = 1300,
    attacker: str = "127.0.0.2",
    other: str = "127.0.0.3",
    paused_pid: int | None = None,
) -> dict[str, Any]:
    """``held`` idle connections from one address (more than MAX_CONNECTIONS, 1250), then
    a request from another address: is it served, and how many of the attacker's
    connections did the server close at once?

    With ``paused_pid`` (the worker's), the worker is stopped while every connection
    arrives, so that all of them wait in the kernel and the worker meets them at once,
    as a busy worker does."""
    nothing_to_resume = contextlib.nullcontext(lambda: None)
    stopped = paused(paused_pid) if paused_pid is not None else nothing_to_resume
    socks = []
    try:
        with stopped as resume:
            for _ in range(held):
                with contextlib.suppress(OSError):
                    socks.append(connect(port, timeout=5.0, source=attacker))
            with contextlib.closing(connect(port, timeout=10.0, source=other)) as asking:
                asking.sendall(
                    b"GET /healthz HTTP/1.1\r\nHost: attack\r\nConnection: close\r\n\r\n"
                )
                resume()
                answer = read_all(asking)
        time.sleep(0.5)
        closed = 0
        for sock in socks:
            sock.setblocking(False)
            try:
                closed += sock.recv(1) == b""
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
    finally:
        for sock in socks:
            sock.close()
    return {
        "attacker_connected": len(socks),
        "attacker_closed_at_once": closed,
        "other_address": status_of(answer),
    }
