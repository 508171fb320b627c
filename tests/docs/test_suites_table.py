"""The README's Testing table names every suite folder of tests/ (what each proves)."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
NOT_SUITES = {"support", "__pycache__"}  # shared helpers, not tests


def test_every_suite_folder_has_a_row() -> None:
    text = (REPO_ROOT / "README.md").read_text()
    section = text.split("## Testing", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`tests/([a-z0-9_]+)`", section))
    folders = {
        path.name
        for path in (REPO_ROOT / "tests").iterdir()
        if path.is_dir() and path.name not in NOT_SUITES and any(path.rglob("test_*.py"))
    }
    assert folders - named == set(), "add a row to the README's Testing table"
