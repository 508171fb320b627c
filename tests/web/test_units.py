"""The companion's pure modules, tested in Node.js without a browser or a service (each
test runs one file of ``clients/web/tests`` that bundles its module with esbuild)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.web.conftest import WEB_CLIENT


def run(node: str, name: str) -> None:
    done = subprocess.run(
        [node, "--test", f"tests/{name}.test.mjs"],
        cwd=WEB_CLIENT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = f"{name}.test.mjs:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, report
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout, report


def test_when_the_coming_report_is_due(web_modules: Path, node: str) -> None:
    run(node, "due")
