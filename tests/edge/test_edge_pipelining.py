"""Pipelined requests are bounded per connection; unread answers cost no memory."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.edge.conftest import edge_server
from tests.support.edge_attacks import pipelined_unread
from tests.support.raw_http import connect, read_all


def test_pipelining_past_the_limit_answers_the_queued_requests_then_closes(
    tmp_path: Path,
) -> None:
    with edge_server(tmp_path, "pipeline", MAX_PIPELINED_REQUESTS="4") as server:
        sock = connect(server.port)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n" * 50)
        data = read_all(sock, 1 << 20, 10.0)
        sock.close()
        # The one being answered and the 4 queued behind it; then the connection closes.
        assert data.count(b"HTTP/1.1 200 ") == 5, data[:500]
        assert data.count(b"connection: close") == 1
        # Within the limit, pipelining works as before.
        sock = connect(server.port)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n" * 4)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n")
        data = read_all(sock, 1 << 20, 10.0)
        sock.close()
        assert data.count(b"HTTP/1.1 200 ") == 5


def test_requests_pipelined_past_the_head_bound_in_one_write_are_all_answered(
    tmp_path: Path,
) -> None:
    """Ten requests of 1,946 bytes sent at once (19,460 bytes, past the 16,384 a head may
    take, each head well within it): before, the edge counted them as one head and
    closed the connection after the eighth, counting a refusal of a too-large head."""
    pad = b"a" * 1900
    ask = b"GET /healthz HTTP/1.1\r\nHost: edge\r\nX-Pad: " + pad + b"\r\n\r\n"
    last = ask[:-2] + b"Connection: close\r\n\r\n"
    with edge_server(tmp_path, "pipelined-large") as server:
        sock = connect(server.port)
        sock.sendall(ask * 9 + last)
        data = read_all(sock, 1 << 20, 10.0)
        sock.close()
        assert data.count(b"HTTP/1.1 200 ") == 10, data[-500:]
        metrics = httpx.get(f"{server.base_url}/metrics").text
    assert "header-fields-too-large" not in metrics


def test_100_connections_pipelining_without_reading_keep_the_worker_small(
    tmp_path: Path,
) -> None:
    """The issue's attack: pipelined requests on connections that never read their
    answers (bounded to 10 s). Under 150 MiB RSS; another client answered within a
    generous 5 s."""
    with edge_server(tmp_path, "unread") as server:
        figures = pipelined_unread(server.port, server.pid, seconds=10.0, rss_guard=400.0)
    assert figures["rss_peak_mib"] < 150, figures
    assert figures["other_client"][0] == 200, figures
    assert figures["other_client"][1] < 5.0, figures
