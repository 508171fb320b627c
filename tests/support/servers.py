"""Processes that answer HTTP on 127.0.0.1, for the suites that test over real HTTP (e2e,
docs, contract, integration, edge...) and for the benchmarks alike: the service as
``python -m app`` (``Server``), or any other command (``Command``: a ceiling, the peer, a
variant of the service). Each is started on a free port as its own process group, with
its output in a log file; ``wait_ready`` polls it until it answers; ``stop`` signals it and
then kills whatever is left of its group; ``pid`` is the process to sample (RSS, fds).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Self

import httpx

REPO_ROOT = Path(__file__).resolve().parents[2]

# Suites that create many games, and the benchmarks, which measure throughput, turn the
# rate limits off; a test of the limits sets its own.
RATE_LIMITS_OFF = {"GAME_CREATION_RATE": "0", "GAME_WRITE_RATE": "0", "PLAYER_WRITE_RATE": "0"}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Launched:
    """A process on 127.0.0.1:``port``; subclasses say which command and environment.

    Its own process group (session): stopping it reaches whatever it started, by the
    group's id, and a test's or benchmark's Ctrl-C is not what stops it. Signals meant to
    exercise the service (``stop(how)``, ``kill9``) go to the process alone, as a
    supervisor's would: what its workers do then is the service's behaviour under test.
    """

    ready_path = "/readyz"

    def __init__(
        self,
        name: str,
        log_path: Path,
        *,
        port: int | None = None,
        cwd: Path = REPO_ROOT,
        env: dict[str, str] | None = None,
    ):
        self.name = name
        self.port = port if port is not None else free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.cwd = cwd
        self.env = env or {}  # over the caller's environment
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        return {**os.environ, **self.env}

    @property
    def pid(self) -> int:
        assert self.proc is not None, f"{self.name} was not started"
        return self.proc.pid

    def exited(self) -> bool:
        return self.proc is not None and self.proc.poll() is not None

    def start(self) -> Self:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                self.command(),
                cwd=self.cwd,
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def wait_ready(self, timeout: float = 30.0) -> Self:
        """Until ``ready_path`` answers 200; AssertionError, with the log's tail, if the
        process exits first or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None, f"{self.name} was not started"
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base_url + self.ready_path, timeout=2).status_code == 200:
                    return self
            time.sleep(0.1)
        raise AssertionError(f"{self.name} not ready after {timeout}s:\n{self.log_tail()}")

    def kill9(self) -> None:
        """SIGKILL: no shutdown, no rollback; only the database's own guarantees remain."""
        assert self.proc is not None, f"{self.name} was not started"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self, how: signal.Signals = signal.SIGTERM, grace: float = 10.0) -> None:
        """``how`` (SIGTERM: graceful), SIGKILL after ``grace`` seconds; then SIGKILL for
        any process left in its group. Safe to call twice, or after kill9."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(how)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self._kill_group()
                self.proc.wait(timeout=10)
        self._kill_group()

    def _kill_group(self) -> None:
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "<no log>"
        return "\n".join(text.splitlines()[-lines:])


class Server(Launched):
    """One ``python -m app`` process (its output goes to ``log_dir/name-port.log``)."""

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
        rate_limits: bool = False,
    ):
        port = free_port()
        super().__init__(name, log_dir / f"{name}-{port}.log", port=port, cwd=cwd, env=env)
        self.database_url = database_url
        self.migrate = migrate
        self.workers = workers
        self.python = python
        self.rate_limits = rate_limits  # True: the settings' own (as deployed)

    def command(self) -> list[str]:
        args = [self.python, "-m", "app", "--host", "127.0.0.1", "--port", str(self.port)]
        if not self.migrate:
            args.append("--no-migrate")
        if self.workers != 1:
            args += ["--workers", str(self.workers)]
        return args

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(DATABASE_URL=self.database_url, LOG_LEVEL="warning", PYTHONUNBUFFERED="1")
        if not self.rate_limits:
            for name, value in RATE_LIMITS_OFF.items():
                env.setdefault(name, value)
        env.update(self.env)
        return env


class Command(Launched):
    """Any command that answers HTTP on ``port`` (which it is given in its arguments)."""

    def __init__(
        self,
        argv: Sequence[str],
        name: str,
        log_path: Path,
        *,
        port: int,
        ready_path: str = "/readyz",
        cwd: Path = REPO_ROOT,
        env: dict[str, str] | None = None,
    ):
        super().__init__(name, log_path, port=port, cwd=cwd, env=env)
        self.argv = list(argv)
        self.ready_path = ready_path

    def command(self) -> list[str]:
        return self.argv


@contextlib.contextmanager
def running(*servers: Launched, together: bool = False, timeout: float = 30.0) -> Iterator[Any]:
    """Start the servers one after the other (each ready before the next starts), or
    all at once with ``together``; stop every one of them at the end, even on failure."""
    try:
        for server in servers:
            server.start()
            if not together:
                server.wait_ready(timeout)
        for server in servers:
            server.wait_ready(timeout)
        yield servers
    finally:
        for server in servers:
            server.stop()
