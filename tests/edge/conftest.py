"""A real ``python -m app`` with the edge's settings under test. The attacks and probes
are bench/attacks.py's (raw sockets: below what an HTTP client library sends)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from tests.live_server import Server


class EdgeServer(Server):
    """``Server`` with extra environment (the edge settings under test)."""

    def __init__(self, *args: object, env: dict[str, str] | None = None, **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.extra_env = env or {}

    def start(self) -> EdgeServer:
        env = dict(os.environ)
        env.update(
            DATABASE_URL=self.database_url,
            LOG_LEVEL="info",
            PYTHONUNBUFFERED="1",
            **self.extra_env,
        )
        args = [self.python, "-m", "app", "--host", "127.0.0.1", "--port", str(self.port)]
        if not self.migrate:
            args.append("--no-migrate")
        if self.workers != 1:
            args += ["--workers", str(self.workers)]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                args, cwd=self.cwd, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextlib.contextmanager
def edge_server(tmp_path: Path, name: str, **env: str) -> Iterator[EdgeServer]:
    server = EdgeServer(f"sqlite:///{tmp_path}/{name}.db", tmp_path, name, env=env)
    try:
        server.start().wait_ready()
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
