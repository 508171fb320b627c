"""A request that asks to upgrade its connection (WebSocket, h2c) is answered as HTTP/1.1,
the service speaking neither, and its connection closed after the answer: never a 400 for
a valid request, never a connection handed out of the edge's bounds and counts."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.edge.conftest import edge_server
from tests.support.raw_http import connect, read_all, status_of

WEBSOCKET = (
    b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
)
H2C = b"Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"
PLAIN = b"GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n"


@pytest.mark.parametrize("ask", [WEBSOCKET, H2C], ids=["websocket", "h2c"])
def test_a_request_that_asks_to_upgrade_is_answered_then_its_connection_closed(
    tmp_path: Path, ask: bytes
) -> None:
    with edge_server(tmp_path, "upgrade") as server:
        sock = connect(server.port)
        sock.sendall(b"GET /v1/faith-track HTTP/1.1\r\nHost: edge\r\n" + ask + b"\r\n" + PLAIN)
        data = read_all(sock, 1 << 20, 10.0)  # until the server closes
        sock.close()
    assert status_of(data) == 200, data[:300]
    assert data.count(b"HTTP/1.1 ") == 1  # what followed the upgrade is not read
    assert b"connection: close" in data.lower()
    assert b"101 Switching Protocols" not in data


def test_upgrades_on_kept_alive_connections_leave_their_address_served(tmp_path: Path) -> None:
    """Before, a WebSocket upgrade after a first request on a connection was handed to
    uvicorn's WebSocket protocol: out of the edge's bounds, and never taken off its
    address's count, so that five such connections shut their address out (past 4)."""
    with edge_server(tmp_path, "upgrades", MAX_CONNECTIONS_PER_ADDRESS="4") as server:
        for _ in range(12):
            sock = connect(server.port)
            sock.sendall(PLAIN)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\n" + WEBSOCKET + b"\r\n")
            data = read_all(sock, 1 << 20, 10.0)
            sock.close()
            assert data.count(b"HTTP/1.1 200 ") == 2, data[:300]
        answer = httpx.get(f"{server.base_url}/healthz", timeout=10.0)
        metrics = httpx.get(f"{server.base_url}/metrics", timeout=10.0).text
    assert answer.status_code == 200
    assert 'reason="address-limit"' not in metrics
