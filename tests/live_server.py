"""A real ``python -m app`` server as a subprocess on 127.0.0.1, for the suites that test
over real HTTP (e2e, docs, contract, integration). Its output goes to a log file."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """One ``python -m app`` process on 127.0.0.1 (its output goes to a log file)."""

    def __init__(
        self,
        database_url: str,
        log_dir: Path,
        name: str,
        *,
        migrate: bool = True,
        workers: int = 1,
        python: str = sys.executable,
        cwd: Path = REPO_ROOT,
        env: dict[str, str] | None = None,
    ):
        self.env = env or {}
        self.database_url = database_url
        self.name = name
        self.migrate = migrate
        self.workers = workers
        self.python = python
        self.cwd = cwd
        self.env = env or {}  # settings for this server, over the test's environment
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_dir / f"{name}-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        env = dict(os.environ)
        env.update(DATABASE_URL=self.database_url, LOG_LEVEL="warning", PYTHONUNBUFFERED="1")
        # Suites that create many games turn the rate limits off; a test of them sets its own.
        env.setdefault("GAME_CREATION_RATE", "0")
        env.setdefault("GAME_WRITE_RATE", "0")
        env.setdefault("PLAYER_WRITE_RATE", "0")
        env.update(self.env)
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

    def wait_ready(self, timeout: float = 30.0) -> Server:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/readyz", timeout=2).status_code == 200:
                    return self
            time.sleep(0.1)
        raise AssertionError(f"{self.name} not ready after {timeout}s:\n{self.log_tail()}")

    def kill9(self) -> None:
        """SIGKILL: no shutdown, no rollback; only the database's own guarantees remain."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        """SIGTERM (graceful), SIGKILL after 10 s. Safe to call twice or after kill9."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(how)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "<no log>"
        return "\n".join(text.splitlines()[-lines:])


@contextlib.contextmanager
def running(*servers: Server, together: bool = False) -> Any:
    """Start the servers one after the other (each ready before the next starts), or
    all at once with ``together``; stop every one of them at the end, even on failure."""
    try:
        for server in servers:
            server.start()
            if not together:
                server.wait_ready()
        for server in servers:
            server.wait_ready()
        yield servers
    finally:
        for server in servers:
            server.stop()
