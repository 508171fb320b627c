"""Bytes the parser cannot read as a request get a 400 problem, as every other refusal of
the edge, and the connection closes; behind an answer under way, nothing is slipped in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.edge.conftest import edge_server
from tests.support.raw_http import connect, head_of, read_all, status_of

NOT_HTTP = {
    # both framings at once: the classic request-smuggling ask
    "length-and-chunked": (
        b"POST /v1/games HTTP/1.1\r\nHost: edge\r\nContent-Length: 4\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    ),
    "space-in-a-header-name": b"GET /healthz HTTP/1.1\r\nHost: edge\r\nX Bad: 1\r\n\r\n",
    "no-request-line": b"HELLO\r\n\r\n",
    "connect": b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
}


def test_bytes_that_are_not_a_request_are_a_400_problem(tmp_path: Path) -> None:
    with edge_server(tmp_path, "bad") as server:
        for name, raw in NOT_HTTP.items():
            sock = connect(server.port)
            sock.sendall(raw)
            data = read_all(sock, 65536, 10.0)  # until the server closes
            sock.close()
            assert status_of(data) == 400, (name, data[:200])
            head = head_of(data)
            assert head["content-type"] == "application/problem+json", name
            assert head["connection"] == "close", name
            problem = json.loads(data.partition(b"\r\n\r\n")[2])
            assert problem["type"].endswith("/bad-request"), (name, problem)
            assert problem["status"] == 400


@pytest.mark.parametrize("after", [NOT_HTTP["no-request-line"], b"GET /healthz HTTP/9.9\r\n\r\n"])
def test_a_bad_request_behind_an_answer_under_way_ends_the_connection_after_it(
    tmp_path: Path, after: bytes
) -> None:
    """uvicorn wrote its 400 at once, ahead of the answer to the request before."""
    with edge_server(tmp_path, "bad-behind") as server:
        sock = connect(server.port)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n" + after)
        data = read_all(sock, 65536, 10.0)
        sock.close()
    assert status_of(data) == 200, data[:200]
    assert data.count(b"HTTP/1.1 ") == 1, data[:400]
