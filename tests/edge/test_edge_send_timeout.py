"""A client that leaves its answers unread is cut off after SEND_TIMEOUT_SECONDS."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx

from tests.edge.conftest import edge_server


def test_a_client_that_reads_nothing_is_cut_off_after_the_send_timeout(tmp_path: Path) -> None:
    """80 answers (the OpenAPI document, ~110 KB each: more than the kernel buffers
    hold) fill the socket buffers, then the server's send buffer; 1 s later the
    connection is aborted. The client looks after 8 s (generous: a loaded machine)."""
    with edge_server(
        tmp_path, "send", SEND_TIMEOUT_SECONDS="1", MAX_PIPELINED_REQUESTS="100"
    ) as server:
        size = len(httpx.get(f"{server.base_url}/openapi.json").content)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: edge\r\n\r\n" * 80)
        time.sleep(8.0)  # read nothing meanwhile
        sock.settimeout(5.0)
        received = 0
        cut = False
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    cut = True
                    break
                received += len(chunk)
        except ConnectionResetError:
            cut = True
        except TimeoutError:
            cut = False
        sock.close()
    # Cut off: the answers still queued were dropped, not delivered late (uvicorn alone
    # delivers all of them once the client reads, then closes after its keep-alive).
    assert cut
    assert received < 79 * size, (received, size)
