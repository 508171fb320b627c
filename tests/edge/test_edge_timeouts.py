"""Idle and slow connections are closed after documented timeouts.

The bounds asserted are generous (several seconds over the setting): the machine running
the suite is loaded, and only "closed at all, not long after the setting" matters here.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterable
from pathlib import Path

from tests.edge.conftest import closed_within, edge_server
from tests.support.raw_http import connect, read_all, status_of


def test_a_connection_that_sends_nothing_is_closed_after_the_keepalive_timeout(
    tmp_path: Path,
) -> None:
    with edge_server(tmp_path, "idle", KEEPALIVE_TIMEOUT_SECONDS="1") as server:
        sock = connect(server.port)
        took = closed_within(sock, 8.0)
        sock.close()
    assert took is not None, "an idle connection was still open after 8 s"
    assert 0.5 < took < 8.0


def test_an_idle_keepalive_connection_is_closed_and_a_busy_one_kept(tmp_path: Path) -> None:
    """The timeout is the setting (1 s here; uvicorn's own is 5 s); closed within 4 s
    (3 s of margin for a loaded machine)."""
    with edge_server(tmp_path, "keepalive", KEEPALIVE_TIMEOUT_SECONDS="1") as server:
        sock = connect(server.port)
        for _ in range(3):  # requests 0.5 s apart: within the timeout, the connection stays
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n")
            answer = _one_answer(sock, b'{"status":"ok"}', "closed while the client was busy")
            assert status_of(answer) == 200
            time.sleep(0.5)
        took = closed_within(sock, 8.0)
        sock.close()
    assert took is not None and took < 4.0


def test_headers_sent_slowly_are_cut_after_the_header_timeout(tmp_path: Path) -> None:
    """Slowloris: a header line every 0.3 s keeps the connection busy but never
    finishes the request; the header timeout (2 s) closes it."""
    with edge_server(tmp_path, "slow", HEADER_TIMEOUT_SECONDS="2") as server:
        sock = connect(server.port)
        start = time.monotonic()
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\n")
        closed = trickled_until_closed(sock, (b"X-Slow-%d: v\r\n" % line for line in range(40)))
        took = time.monotonic() - start
        sock.close()
        # A normal request on a new connection is unaffected.
        fresh = connect(server.port)
        fresh.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n")
        assert status_of(read_all(fresh)) == 200
        fresh.close()
    assert closed, "a slow-header connection was still open after 12 s"
    assert 1.5 < took < 8.0


def test_line_ends_sent_slowly_are_cut_after_the_header_timeout(tmp_path: Path) -> None:
    """Bytes the parser skips (empty lines before a request line) begin no request, yet
    they are a head that never finishes: the header timeout (2 s) closes the connection,
    though each read would have put off the keep-alive timeout (30 s)."""
    with edge_server(
        tmp_path, "line-ends", HEADER_TIMEOUT_SECONDS="2", KEEPALIVE_TIMEOUT_SECONDS="30"
    ) as server:
        sock = connect(server.port)
        start = time.monotonic()
        sock.sendall(b"\r\n")
        closed = trickled_until_closed(sock, (b"\r\n" for _ in range(39)))
        took = time.monotonic() - start
        sock.close()
    assert closed, "a connection sending line ends was still open after 12 s"
    assert 1.5 < took < 8.0


def test_the_keepalive_timeout_is_the_setting_to_the_fraction_of_a_second(
    tmp_path: Path,
) -> None:
    """1.6 s, not uvicorn's whole seconds (1 s): the connection stays open past 1.4 s after
    its answer (the upper bound is generous for a loaded machine)."""
    with edge_server(tmp_path, "fraction", KEEPALIVE_TIMEOUT_SECONDS="1.6") as server:
        sock = connect(server.port)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n")
        answer = b""
        while not answer.endswith(b'{"status":"ok"}'):
            chunk = sock.recv(65536)
            assert chunk, "closed before the answer"
            answer += chunk
        took = closed_within(sock, 8.0)
        sock.close()
    assert took is not None and 1.4 < took < 6.0


def trickled_until_closed(sock: socket.socket, pieces: Iterable[bytes]) -> bool:
    """Send each of ``pieces`` 0.3 s after the one before (40 pieces: 12 s at most); True
    as soon as the server has closed the connection, False if it never did."""
    for piece in pieces:
        time.sleep(0.3)
        try:
            sock.sendall(piece)
        except OSError:
            return True
        sock.setblocking(False)
        try:
            closed = sock.recv(4096) == b""
        except BlockingIOError:
            closed = False
        except OSError:
            closed = True
        sock.setblocking(True)
        if closed:
            return True
    return False


def test_a_body_that_comes_after_its_answer_leaves_the_connection_idle_and_timed(
    tmp_path: Path,
) -> None:
    """A request refused before its body is read (406 here) while the body still comes:
    once the body had all come, nothing timed the connection any more, and it stayed
    open until the client closed it."""
    body = b'{"faith": 4}' * 40
    head = (
        b"POST /v1/calculations/gains HTTP/1.1\r\nHost: edge\r\nAccept: text/html\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    with edge_server(tmp_path, "late-body", KEEPALIVE_TIMEOUT_SECONDS="1") as server:
        sock = connect(server.port)
        sock.sendall(head + body[:10])
        answer = _one_answer(sock, b"}", "closed before the answer")
        assert status_of(answer) == 406
        sock.sendall(body[10:])  # the rest, after the answer
        took = closed_within(sock, 8.0)
        sock.close()
    assert took is not None, "the connection was still open 8 s after the body ended"
    assert took < 8.0


def _one_answer(sock: socket.socket, ending: bytes, if_closed: str) -> bytes:
    """What the server sends until it has sent ``ending`` (the end of the answer's body),
    failing with ``if_closed`` if it closes the connection first."""
    answer = b""
    while not answer.endswith(ending):
        chunk = sock.recv(65536)
        assert chunk, if_closed
        answer += chunk
    return answer
