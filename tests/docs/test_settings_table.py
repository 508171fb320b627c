"""The README's configuration table is the settings' documentation: every setting of
app/settings.py has a row there, showing the default the code declares (the one place
it is declared; a new setting that is not documented fails here)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from app.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def _rows() -> dict[str, str]:
    """Each setting's default cell, by its environment name (a row may name several
    settings, `HOST`, `PORT`, with a default for each)."""
    defaults: dict[str, str] = {}
    for line in README.read_text().splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        names = re.findall(r"`([A-Z][A-Z0-9_]*)`", cells[0])
        values = re.findall(r"`([^`]*)`", cells[1]) or [cells[1]]
        for index, name in enumerate(names):
            defaults[name] = values[index] if len(values) == len(names) else cells[1]
    return defaults


def _as_documented(default: Any) -> str:
    if default is None:
        return "unset"
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, float) and default.is_integer():
        return str(int(default))
    if isinstance(default, tuple | list):
        return ",".join(str(item) for item in default) or "empty"
    return str(default) or "empty"


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_the_setting_has_a_row_with_its_default(name: str) -> None:
    rows = _rows()
    assert name.upper() in rows, f"{name.upper()} has no row in the README's table"
    assert rows[name.upper()] == _as_documented(Settings.model_fields[name].default)
