"""A real ``python -m app`` with the edge's settings under test. The attacks and probes
are tests/support's (raw sockets: below what an HTTP client library sends)."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.support.servers import Server


class EdgeServer(Server):
    """``Server`` at log level info (the tests read the log), with its pid at hand."""

    def __init__(self, *args: Any, env: dict[str, str] | None = None, **kwargs: Any):
        super().__init__(*args, env={"LOG_LEVEL": "info", **(env or {})}, **kwargs)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def edge_lines(self, within: float = 5.0, count: int = 1) -> list[dict[str, Any]]:
        """The access lines of the answers the edge gave itself, once there are ``count``
        (waiting up to ``within`` seconds: a line is written a loop turn after its answer)."""
        deadline = time.monotonic() + within
        while True:
            lines = [
                json.loads(line)
                for line in self.log_text().splitlines()
                if line.startswith('{"event":"edge"')
            ]
            if len(lines) >= count or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)


@contextlib.contextmanager
def edge_server(tmp_path: Path, name: str, **env: str) -> Iterator[EdgeServer]:
    server = EdgeServer(f"sqlite:///{tmp_path}/{name}.db", tmp_path, name, env=env)
    try:
        # Generous: the machines these run on are shared, and a start may wait its turn.
        server.start().wait_ready(timeout=90.0)
        yield server
    finally:
        server.stop()


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``sock`` (dropping what it sends), or None if it
    was still open after ``seconds``."""
    start = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - start
