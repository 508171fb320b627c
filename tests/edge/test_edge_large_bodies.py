"""A large body answered before it is read (413 when too large, or a 406 or a 404 to a
chunked body) ends its connection: the rest of it is not read, whatever the client keeps
sending. The server read it all and dropped it, for as long as the body timeout let the
client send: on this machine's loopback, gigabytes through one worker's event loop from
one connection."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.edge.conftest import edge_server
from tests.support.raw_http import connect, head_of, status_of

SENDING_FOR = 6.0  # seconds the client goes on sending; the body timeout is 10 s
CHUNK = b"x" * 65536


def _send_until_cut(sock: socket.socket, first: bytes, chunked: bool) -> tuple[int, float]:
    """Send ``first``, then body bytes for up to SENDING_FOR seconds or until the server
    cuts the connection: how many bytes went out, and after how long."""
    start = time.monotonic()
    sent = 0
    piece = b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK) if chunked else CHUNK
    with contextlib.suppress(OSError):
        sock.sendall(first)
        while time.monotonic() - start < SENDING_FOR:
            sock.sendall(piece)
            sent += len(piece)
    return sent, time.monotonic() - start


# What is sent, how its body is framed, and the answer it gets before its body is read.
CASES = {
    "too large, declared": (b"/v1/calculations/gains", b"", "declared", 413),
    "too large, chunked": (b"/v1/calculations/gains", b"", "chunked", 413),
    "not acceptable, chunked": (
        b"/v1/calculations/gains",
        b"Accept: text/html\r\n",
        "chunked",
        406,
    ),
    "no such route, chunked": (b"/v1/nothing-here", b"", "chunked", 404),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_large_body_is_not_read_past_an_answer_given_before_it(tmp_path: Path, case: str) -> None:
    target, more, framing, status = CASES[case]
    fields = b"Host: edge\r\nContent-Type: application/json\r\n" + more
    if framing == "chunked":
        fields += b"Transfer-Encoding: chunked\r\n"
    else:
        fields += b"Content-Length: 100000000000\r\n"
    first = b"POST " + target + b" HTTP/1.1\r\n" + fields + b"\r\n"
    with edge_server(tmp_path, "large") as server:
        sock = connect(server.port)
        received: list[bytes] = []

        def read() -> None:
            data = b""
            with contextlib.suppress(OSError):
                while chunk := sock.recv(65536):
                    data += chunk
            received.append(data)

        reader = threading.Thread(target=read)
        reader.start()
        sent, took = _send_until_cut(sock, first, framing == "chunked")
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        reader.join(10)
        sock.close()
        assert status_of(received[0]) == status, received[0][:200]
        head = head_of(received[0])
        assert head["connection"] == "close"
        body = received[0].partition(b"\r\n\r\n")[2]
        assert len(body) == int(head["content-length"])  # the whole answer, not reset away
        assert json.loads(body)["status"] == status
        # Cut within the linger (2 s), not after the client's 6 s of sending; what went out
        # is what the kernel's buffers took while the server lingered, not gigabytes.
        assert took < SENDING_FOR - 1, (took, sent)
        assert sent < 64 << 20, sent
