"""Player names that are odd but valid (emoji, right-to-left scripts, combining marks,
SQL- or HTML-looking text): accepted, and echoed back exactly by the game and its events.
A name that must be refused is a case of test_game_creation.py."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import create_game

UNICODE_NAMES = [
    pytest.param("🦁 Lorenzo", id="emoji"),
    pytest.param("לורנצו", id="rtl-hebrew"),
    pytest.param("لورينزو الرائع", id="rtl-arabic"),
    pytest.param("Zoe\u0308", id="combining-diaeresis"),
    pytest.param("Z\u0351\u0364a\u0336l\u0337g\u0338o", id="stacked-combining"),
    pytest.param("洛伦佐·德·美第奇", id="cjk"),
    pytest.param("Anna  Maria", id="inner-spaces"),
    pytest.param("n" * 50, id="50-chars"),
    pytest.param("' OR 1=1; --", id="sql-looking"),
    pytest.param("<script>alert(1)</script>", id="html-looking"),
]


@pytest.mark.parametrize("name", UNICODE_NAMES)
async def test_unusual_names_are_echoed_exactly(world_client: httpx.AsyncClient, name: str) -> None:
    game = await create_game(world_client, players=[{"name": name}, {"name": "Bruno"}])
    assert game.game["players"][0]["name"] == name
    state = await game.read()
    assert state["players"][0]["name"] == name
    events = await world_client.get(f"{game.url}/events", headers=game.host())
    assert events.json()["events"][0]["data"]["players"][0]["name"] == name
