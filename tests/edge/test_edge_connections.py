"""Past MAX_CONNECTIONS a worker sheds load with a 503 problem, not uvicorn's plain text;
past MAX_CONNECTIONS_PER_ADDRESS one client address does too, and the others are served.
Other client addresses are other loopback addresses (127.0.0.2, 127.0.0.3, ...)."""

from __future__ import annotations

import contextlib
import json
import socket
from pathlib import Path
from typing import Any, get_args

import httpx
import pytest

from app.settings import EventLoop
from tests.edge.conftest import edge_server
from tests.support.edge_attacks import address_flood, connection_burst, over_connection_limit
from tests.support.probes import probe
from tests.support.raw_http import ask, connect, head_of, status_of


def test_connections_past_the_limit_get_a_503_problem_with_retry_after(tmp_path: Path) -> None:
    with edge_server(tmp_path, "limit", MAX_CONNECTIONS="10", RETRY_AFTER_SECONDS="3") as server:
        figures = over_connection_limit(server.port, held=10, extra=3)
        assert figures["statuses"] == {"503": 3}, figures
        assert figures["retry_after"] == 3
        assert figures["problem_type"].endswith("/service-unavailable")
        # Once the held connections are gone, new ones are served again.
        assert probe(server.port)[0] == 200
        # Each 503 is on the access log, with the request it answered.
        lines = server.edge_lines(count=3)
    assert len(lines) == 3, lines
    for line in lines:
        assert line["reason"] == "connection-limit" and line["status"] == 503, line
        assert (line["method"], line["path"]) == ("GET", "/healthz"), line
        assert line["request_id"], line


HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n"


def _hold(port: int, source: str, count: int) -> list[socket.socket]:
    """``count`` idle connections from ``source`` (the server may close some at once)."""
    held = []
    for _ in range(count):
        with contextlib.suppress(OSError):
            held.append(connect(port, timeout=5.0, source=source))
    return held


def _served(port: int, source: str) -> int | None:
    answer = ask(
        port, b"GET /healthz HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n", source=source
    )
    return status_of(answer)


def _closed_by_server(sock: socket.socket, wait: float = 3.0) -> bool:
    sock.settimeout(wait)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def _assert_only_the_attacker_shed(figures: dict[str, Any]) -> None:
    """The other address served; the attacker's 1,300 connections past twice the default
    cap (64) closed at once."""
    assert figures["other_address"] == 200, figures
    assert figures["attacker_connected"] == 1300, figures
    assert figures["attacker_closed_at_once"] >= 1300 - 2 * 64, figures


def test_one_address_cannot_take_every_connection_with_the_defaults(tmp_path: Path) -> None:
    """The issue's attack: more idle sockets from one address than MAX_CONNECTIONS (1250)
    gave every client a 503. With the default per-address cap, a client at another
    address is served, and the attacker's sockets past twice the cap are closed at once."""
    with edge_server(tmp_path, "address") as server:
        figures = address_flood(server.port, held=1300)
    _assert_only_the_attacker_shed(figures)


@pytest.mark.parametrize("loop", get_args(EventLoop))
def test_a_flood_that_reaches_a_busy_worker_at_once_is_dropped_as_it_comes(
    tmp_path: Path, loop: str
) -> None:
    """The same attack when every connection waits in the kernel until the worker gets to
    them: the standard library's loop accepts them all in one turn. A connection closed at
    once stops counting at once, so the flood never counts as the server's connections and
    the other address is served."""
    with edge_server(tmp_path, "busy", EVENT_LOOP=loop) as server:
        figures = address_flood(server.port, held=1300, paused_pid=server.pid)
    _assert_only_the_attacker_shed(figures)


@pytest.mark.parametrize("loop", get_args(EventLoop))
def test_a_burst_of_connections_at_a_busy_worker_costs_memory_by_the_connection(
    tmp_path: Path, loop: str
) -> None:
    """2,000 connections from 40 addresses (each under its cap) reach a stopped worker
    together, more than MAX_CONNECTIONS (1250): the worker takes them all in a turn or
    two, and its memory grows by what that many connections hold (docs/scaling.md: under
    16 KiB each), however fast they came. While they are held a fresh client is answered
    503 at once; once they are gone it is served."""
    with edge_server(tmp_path, "burst", EVENT_LOOP=loop) as server:
        figures = connection_burst(server.port, server.pid)
    assert figures["connected"] == 2000, figures
    assert figures["rss_peak_mib"] - figures["rss_before_mib"] < 2000 * 16 / 1024, figures
    assert figures["other_while_held"] == 503, figures
    assert figures["other_once_closed"] == 200, figures


def test_past_its_cap_an_address_gets_503_with_retry_after_then_nothing(tmp_path: Path) -> None:
    env = {"MAX_CONNECTIONS_PER_ADDRESS": "5", "MAX_CONNECTIONS": "100", "RETRY_AFTER_SECONDS": "3"}
    with edge_server(tmp_path, "cap", **env) as server:
        held = _hold(server.port, "127.0.0.2", 5)
        try:
            # The 6th to 10th from the same address are answered 503, then closed.
            answer = ask(
                server.port,
                b"GET /healthz HTTP/1.1\r\nHost: edge\r\nX-Request-ID: capped-7\r\n\r\n",
                source="127.0.0.2",
            )
            more = _hold(server.port, "127.0.0.2", 10)
            # Past twice the cap (the 11th on), closed without an answer.
            dropped = [_closed_by_server(sock, 2.0) for sock in more[5:]]
            # Others are served meanwhile.
            other = _served(server.port, "127.0.0.3")
            metrics = httpx.get(f"{server.base_url}/metrics").text
            for sock in more:
                sock.close()
        finally:
            for sock in held:
                sock.close()
        # Once the held connections are gone, the address is served again.
        again = _served(server.port, "127.0.0.2")
    assert status_of(answer) == 503, answer[:300]
    assert head_of(answer)["retry-after"] == "3"
    # The client's own request id, as every other answer echoes it.
    assert head_of(answer)["x-request-id"] == "capped-7"
    problem = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert problem["type"].endswith("/service-unavailable")
    assert "5 connections from one address" in problem["detail"]
    assert all(dropped), dropped
    assert other == 200
    assert again == 200
    assert 'http_edge_refusals_total{reason="address-limit"}' in metrics
    assert 'http_edge_refusals_total{reason="address-flood"}' in metrics


def test_a_trusted_proxy_is_not_held_to_the_per_address_cap(tmp_path: Path) -> None:
    """A proxy carries many clients: its connections are not counted per address."""
    env = {"MAX_CONNECTIONS_PER_ADDRESS": "3", "TRUSTED_PROXIES": "127.0.0.4/32"}
    with edge_server(tmp_path, "proxy", **env) as server:
        held = _hold(server.port, "127.0.0.4", 12)
        try:
            through_proxy = _served(server.port, "127.0.0.4")
            untrusted = _hold(server.port, "127.0.0.5", 3)
            capped = ask(
                server.port, b"GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n", source="127.0.0.5"
            )
            for sock in untrusted:
                sock.close()
        finally:
            for sock in held:
                sock.close()
    assert through_proxy == 200
    assert status_of(capped) == 503
