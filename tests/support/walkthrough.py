"""docs/walkthrough.sh (the README's game by curl) run against a base URL: the suites that
run it (a live server, the image, the compose stack) share what its end must be."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

WALKTHROUGH = Path(__file__).resolve().parents[2] / "docs" / "walkthrough.sh"
# Its last line: the last of every event the game logged, the third report's resolution.
LAST_LINE = "12 report_resolved"


def run_walkthrough(base_url: str, timeout: float = 180) -> list[str]:
    """The walkthrough's output lines; AssertionError if it fails or ends otherwise."""
    done = subprocess.run(
        ["bash", str(WALKTHROUGH)],
        env={**os.environ, "BASE": base_url},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines and lines[-1] == LAST_LINE, done.stdout[-2000:]
    return lines
