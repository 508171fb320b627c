"""The header limits hold per request on a kept-alive connection, and never cut into an
answer being written."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.edge.conftest import edge_server
from tests.support.raw_http import connect, read_all, status_of

SMALL = b"GET /healthz HTTP/1.1\r\nHost: edge\r\n" + b"X-A: b\r\n" * 20 + b"\r\n"
LARGE = b"GET /healthz HTTP/1.1\r\nHost: edge\r\nX-Big: " + b"a" * 5000 + b"\r\n\r\n"


def _one_answer(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b'{"status":"ok"}'):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_limits_apply_to_each_request_of_a_connection(tmp_path: Path) -> None:
    with edge_server(tmp_path, "perrequest", MAX_HEADER_BYTES="4096", MAX_HEADERS="30") as server:
        # 50 requests of 21 fields and ~200 bytes each: counted per request, all served.
        sock = connect(server.port)
        for _ in range(50):
            sock.sendall(SMALL)
            assert status_of(_one_answer(sock)) == 200
        # Then one too large on the same connection: 431, and the connection closes.
        sock.sendall(LARGE)
        data = read_all(sock, 65536, 10.0)
        sock.close()
        assert status_of(data) == 431

        # Pipelined behind a request being answered: no 431 can be slipped into that
        # answer; the first is answered in full, then the connection closes.
        sock = connect(server.port)
        sock.sendall(SMALL + LARGE)
        data = read_all(sock, 65536, 10.0)
        sock.close()
        assert data.count(b"HTTP/1.1 200 ") == 1, data
        assert b" 431 " not in data
        assert data.endswith(b'{"status":"ok"}')
