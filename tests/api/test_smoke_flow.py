"""A full game through the API, on both databases: the backbone the other suites extend."""

from __future__ import annotations

import httpx

from tests.api.conftest import GameHandle


async def test_full_game_three_reports(client: httpx.AsyncClient, game: GameHandle) -> None:
    await game.set_faith(p1=5, p2=2, p3=9)
    assert (await game.decide(1, "p1", "support")).status_code == 200
    assert (await game.decide(1, "p3", "refuse")).status_code == 200
    resolved = await game.resolve(1)
    assert resolved.status_code == 201, resolved.text
    outcomes = {o["player_id"]: o for o in resolved.json()["outcomes"]}
    assert outcomes["p1"]["victory_points"] == {"faith": 5, "sisto_iv": 5, "total": 10}
    assert outcomes["p2"]["outcome"] == "excommunicated" and outcomes["p2"]["tile_id"] == "I-6"
    assert outcomes["p3"]["faith_after"] == 9 and outcomes["p3"]["excommunicated"] is True

    await game.set_faith(p1=4, p2=4, p3=12)
    resolved = await game.resolve(2, default_choice="support")
    assert resolved.status_code == 201, resolved.text

    await game.set_faith(p1=3, p2=15, p3=7)
    resolved = await game.resolve(3)
    assert resolved.status_code == 201, resolved.text
    last = {o["player_id"]: o for o in resolved.json()["outcomes"]}
    assert last["p1"]["outcome"] == "excommunicated" and last["p1"]["victory_points"]["faith"] == 3
    assert last["p2"]["victory_points"]["faith"] == 30

    state = await game.read()
    players = {p["id"]: p for p in state["players"]}
    assert players["p1"]["report_victory_points"] == 10 + 4 + 5 + 3
    assert [e["tile_id"] for e in players["p1"]["excommunications"]] == ["III-7"]
    assert [e["tile_id"] for e in players["p2"]["excommunications"]] == ["I-6"]
    assert all(p["faith"] == 0 for p in state["players"])
    assert state["version"] == 1 + 3 + 2 + 3

    events = (await client.get(f"{game.url}/events", headers=game.host())).json()["events"]
    assert [e["seq"] for e in events] == list(range(1, state["version"] + 1))
