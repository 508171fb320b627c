"""A body too large to read is answered 413 and its connection ended: the rest of it is
not read, whatever the client keeps sending. The server read it all and dropped it, for
as long as the body timeout let the client send: on this machine's loopback, gigabytes
through one worker's event loop from one connection."""

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


@pytest.mark.parametrize("framing", ["declared length", "chunked"])
def test_a_body_too_large_is_not_read_past_its_413(tmp_path: Path, framing: str) -> None:
    fields = b"Host: edge\r\nContent-Type: application/json\r\n"
    if framing == "chunked":
        fields += b"Transfer-Encoding: chunked\r\n"
    else:
        fields += b"Content-Length: 100000000000\r\n"
    first = b"POST /v1/calculations/gains HTTP/1.1\r\n" + fields + b"\r\n"
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
        assert status_of(received[0]) == 413, received[0][:200]
        head = head_of(received[0])
        assert head["connection"] == "close"
        body = received[0].partition(b"\r\n\r\n")[2]
        assert len(body) == int(head["content-length"])  # the whole answer, not reset away
        assert json.loads(body)["type"].endswith("/payload-too-large")
        # Cut within the linger (2 s), not after the client's 6 s of sending; what went out
        # is what the kernel's buffers took while the server lingered, not gigabytes.
        assert took < SENDING_FOR - 1, (took, sent)
        assert sent < 64 << 20, sent
