"""The README's curl walkthrough (docs/walkthrough.sh) runs green against a live server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/walkthrough.db"}
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_readme_walkthrough_runs(live_server: str) -> None:
    done = subprocess.run(
        ["bash", str(ROOT / "docs" / "walkthrough.sh")],
        env={**os.environ, "BASE": live_server},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "p1 supported tile None VP {'faith': 5, 'sisto_iv': 5, 'total': 10}" in done.stdout
    assert any(line.startswith("p2 excommunicated tile I-2") for line in lines)
    assert "{'coins': 1, 'stone': 2}" in lines
    assert any(line.startswith("p1 51 ") and "'III-4'" in line for line in lines)
    assert lines[-1] == "9 report_resolved"
