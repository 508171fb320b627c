"""The README's curl walkthrough (docs/walkthrough.sh) runs green against a live server."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.servers import Server, running
from tests.support.walkthrough import run_walkthrough


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    server = Server(f"sqlite:///{tmp_path}/walkthrough.db", tmp_path, "walkthrough")
    with running(server):
        yield server.base_url


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_readme_walkthrough_runs(live_server: str) -> None:
    lines = run_walkthrough(live_server, timeout=120)
    output = "\n".join(lines)
    assert "p1 supported tile None VP {'faith': 5, 'sisto_iv': 5, 'total': 10}" in output
    assert any(line.startswith("p2 excommunicated tile I-2") for line in lines)
    assert "{'coins': 1, 'stone': 2}" in lines
    assert any(line.startswith("p1 51 ") and "'III-4'" in line for line in lines)
    assert "9" in lines  # Carla's faith after her +1
    assert "undone faith_changed [5, 2, 9]" in lines  # Bruno's +3 by mistake, undone
    assert lines[-10:-7] == ["3 faith_changed", "4 faith_changed", "5 change_undone"]
