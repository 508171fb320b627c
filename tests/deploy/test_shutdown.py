"""SIGTERM: what is still being served gets ``SHUTDOWN_TIMEOUT_SECONDS`` to finish, then the
process exits, however long a client would hold its request open (docs/deploy.md)."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.support.servers import Server, running

SHUTDOWN_TIMEOUT_SECONDS = 2


def hold_a_request(port: int) -> socket.socket:
    """A POST whose body never all comes: sent once the app asked for it (``100 Continue``
    proves the request is under way), then only a part of it."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        b"POST /v1/calculations/gains HTTP/1.1\r\nHost: test\r\n"
        b"Content-Type: application/json\r\nContent-Length: 1000\r\n"
        b"Expect: 100-continue\r\n\r\n"
    )
    assert sock.recv(1024).startswith(b"HTTP/1.1 100 "), "the app did not ask for the body"
    sock.sendall(b'{"gains": [')
    return sock


def test_sigterm_exits_within_the_shutdown_timeout(tmp_path: Path) -> None:
    # The body timeout alone would keep the request, and so the process, for a minute.
    server = Server(
        f"sqlite:///{tmp_path}/shutdown.db",
        tmp_path,
        "shutdown",
        env={
            "BODY_TIMEOUT_SECONDS": "60",
            "SHUTDOWN_TIMEOUT_SECONDS": str(SHUTDOWN_TIMEOUT_SECONDS),
        },
    )
    with running(server):
        assert server.proc is not None
        held = hold_a_request(server.port)
        try:
            started = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            try:
                code = server.proc.wait(timeout=SHUTDOWN_TIMEOUT_SECONDS + 8)
            except subprocess.TimeoutExpired:
                raise AssertionError(
                    f"still running {time.monotonic() - started:.1f} s after SIGTERM"
                ) from None
            took = time.monotonic() - started
        finally:
            held.close()
    # uvicorn raises the signal again once it is done: -SIGTERM is its clean exit.
    assert code in (0, -signal.SIGTERM), server.log_tail()
    assert took >= SHUTDOWN_TIMEOUT_SECONDS - 0.5, "the request was not given its time"
    assert "timeout graceful shutdown exceeded" in server.log_tail()
