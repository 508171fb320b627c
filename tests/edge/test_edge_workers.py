"""``--workers 2``: workers exit with their master; no metrics folder is left behind."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

from tests.edge.conftest import EdgeServer
from tests.support.probes import alive, children_of


def _workers(master: int) -> list[int]:
    workers = []
    for pid in children_of(master):
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"spawn_main" in cmdline:
            workers.append(pid)
    return workers


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_killing_the_master_takes_its_workers_and_metrics_folder(tmp_path: Path) -> None:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    server = EdgeServer(
        f"sqlite:///{tmp_path}/kill.db", tmp_path, "kill", workers=2, env={"TMPDIR": str(tmpdir)}
    )
    workers: list[int] = []
    try:
        server.start().wait_ready()
        workers = _workers(server.pid)
        assert len(workers) == 2
        assert len(list(tmpdir.glob("vatican-metrics-*"))) == 1
        server.kill9()
        deadline = time.monotonic() + 10  # generous: a loaded machine
        while time.monotonic() < deadline and any(alive(pid) for pid in workers):
            time.sleep(0.1)
        survivors = [pid for pid in workers if alive(pid)]
        assert survivors == [], "workers outlived their master"
        assert _bindable(server.port), "the port is still held"
        assert list(tmpdir.glob("vatican-metrics-*")) == []
    finally:
        for pid in workers:  # orphans, when the test fails: do not leave them running
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        server.stop()


def test_stopping_the_master_removes_its_metrics_folder_and_stale_ones(tmp_path: Path) -> None:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    # The folder of a master that is not running (pid_max is at most 2**22): swept at start.
    stale = tmpdir / "vatican-metrics-4194399-abc"
    stale.mkdir()
    server = EdgeServer(
        f"sqlite:///{tmp_path}/stop.db", tmp_path, "stop", workers=2, env={"TMPDIR": str(tmpdir)}
    )
    try:
        server.start().wait_ready()
        assert not stale.exists()
        assert len(list(tmpdir.glob("vatican-metrics-*"))) == 1
    finally:
        server.stop()
    assert server.proc is not None and server.proc.returncode == 0
    assert list(tmpdir.glob("vatican-metrics-*")) == []
