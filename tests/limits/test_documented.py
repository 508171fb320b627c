"""Every limit and retention setting has its row in the README's configuration table, and
the API guide names the ones clients meet."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings import Settings

REPO_ROOT = Path(__file__).resolve().parents[2]
SETTINGS = [
    "game_creation_rate",
    "game_creation_burst",
    "game_write_rate",
    "game_write_burst",
    "trusted_proxies",
    "game_retention_days",
    "retention_sweep_seconds",
    "retention_batch_size",
    "max_events_per_game",
    "max_events_per_player",
    "player_write_rate",
    "player_write_burst",
]


@pytest.mark.parametrize("name", SETTINGS)
def test_the_setting_is_in_the_readme_table(name: str) -> None:
    assert name in Settings.model_fields
    rows = [
        line
        for line in (REPO_ROOT / "README.md").read_text().splitlines()
        if line.startswith("| `")
    ]
    assert any(f"`{name.upper()}`" in row for row in rows), name


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
