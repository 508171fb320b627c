"""The API guide names the limits clients meet (every setting's row in the README's table:
tests/docs/test_settings_table.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "name",
    [
        "GAME_CREATION_RATE",
        "GAME_WRITE_RATE",
        "PLAYER_WRITE_RATE",
        "MAX_EVENTS_PER_PLAYER",
        "TRUSTED_PROXIES",
        "GAME_RETENTION_DAYS",
    ],
)
def test_the_api_guide_names_it(name: str) -> None:
    assert f"`{name}`" in (REPO_ROOT / "docs" / "api.md").read_text()
