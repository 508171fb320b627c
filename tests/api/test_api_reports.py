"""API.md "Games" reports: read, decide and resolve the Vatican Reports of a stored game
(R-REP-2..10), on both databases. After every rejected change the game, its reports and
its event log are checked unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.api.conftest import GameHandle, create_game
from tests.api.test_api_support import assert_problem, assert_unchanged, snapshot
from tests.support.tile_packs import FIVE_SEATS, hor_app


@pytest.fixture
def app(database_url: str, tmp_path: Path) -> FastAPI:
    """The app with a Houses of Renaissance pack to enable: a game of five needs it."""
    return hor_app(database_url, tmp_path)


def decisions(report: dict[str, Any]) -> list[tuple[str, bool, str | None]]:
    return [(d["player_id"], d["eligible"], d["choice"]) for d in report["decisions"]]


async def get_report(game: GameHandle, period: int, player: str | None = None) -> dict[str, Any]:
    headers = game.player(player) if player else game.host()
    response = await game.client.get(f"{game.url}/reports/{period}", headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def decide_as(
    game: GameHandle, who: str | None, period: int, player_id: str, choice: str
) -> httpx.Response:
    headers = game.host() if who is None else game.player(who)
    return await game.client.put(
        f"{game.url}/reports/{period}/decisions/{player_id}",
        json={"choice": choice},
        headers=headers,
    )


async def test_open_report_read_by_a_player(game: GameHandle) -> None:
    report = await get_report(game, 1, player="p2")
    assert {k: v for k, v in report.items() if k != "resolved_at"} == {
        "period": 1,
        "round": 2,
        "threshold": 3,
        "status": "open",
        "tile_id": "I-6",
        "decisions": [
            {"player_id": "p1", "eligible": False, "choice": None},
            {"player_id": "p2", "eligible": False, "choice": None},
            {"player_id": "p3", "eligible": False, "choice": None},
        ],
        "outcomes": None,
    }
    await game.set_faith(p1=3, p2=2, p3=15)
    assert decisions(await get_report(game, 1)) == [
        ("p1", True, None),
        ("p2", False, None),
        ("p3", True, None),
    ]
    last = await get_report(game, 3)
    assert (last["round"], last["threshold"], last["tile_id"]) == (6, 5, "III-7")
    assert decisions(last) == [("p1", False, None), ("p2", False, None), ("p3", True, None)]
    second = await get_report(game, 2)
    assert (second["round"], second["threshold"], second["tile_id"]) == (4, 4, "II-3")


async def test_report_bad_period_is_422(client: httpx.AsyncClient, game: GameHandle) -> None:
    before = await snapshot(game)
    for period in ("0", "4", "x"):
        response = await client.get(f"{game.url}/reports/{period}", headers=game.host())
        assert_problem(response, 422, "validation-error", loc=["path", "period"])
        response = await client.put(
            f"{game.url}/reports/{period}/decisions/p1",
            json={"choice": "support"},
            headers=game.host(),
        )
        assert_problem(response, 422, "validation-error", loc=["path", "period"])
        response = await client.post(
            f"{game.url}/reports/{period}/resolution", json={}, headers=game.host()
        )
        assert_problem(response, 422, "validation-error", loc=["path", "period"])
    await assert_unchanged(game, before)


async def test_decision_rights(client: httpx.AsyncClient, game: GameHandle) -> None:
    await game.set_faith(p1=5, p2=4, p3=3)
    own = await decide_as(game, "p2", 1, "p2", "refuse")
    assert own.status_code == 200, own.text
    assert own.headers["etag"] == '"3"'
    assert decisions(own.json()) == [("p1", True, None), ("p2", True, "refuse"), ("p3", True, None)]
    by_host = await decide_as(game, None, 1, "p3", "support")
    assert by_host.status_code == 200
    assert decisions(by_host.json())[2] == ("p3", True, "support")
    before = await snapshot(game)
    assert_problem(await decide_as(game, "p2", 1, "p1", "support"), 403, "forbidden")
    assert_problem(await decide_as(game, "p1", 1, "p3", "refuse"), 403, "forbidden")
    anonymous = await client.put(f"{game.url}/reports/1/decisions/p1", json={"choice": "support"})
    assert_problem(anonymous, 401, "unauthorized")
    for body, loc in (
        ({"choice": "maybe"}, ["body", "choice"]),
        ({}, ["body", "choice"]),
        ({"choice": "support", "faith": 3}, ["body", "faith"]),
        ({"choice": None}, ["body", "choice"]),
    ):
        response = await client.put(
            f"{game.url}/reports/1/decisions/p1", json=body, headers=game.host()
        )
        assert_problem(response, 422, "validation-error", loc=loc)
    await assert_unchanged(game, before)


async def test_short_player_may_not_choose(client: httpx.AsyncClient, game: GameHandle) -> None:
    await game.set_faith(p1=2, p2=3)
    before = await snapshot(game)
    for who in (None, "p1"):
        assert_problem(await decide_as(game, who, 1, "p1", "support"), 409, "not-eligible")
    # Period 2's threshold is 4: 3 is short there (R-REP-1), once period 1 is resolved.
    await assert_unchanged(game, before)
    await game.set_faith(p1=3, p2=3, p3=3)
    assert (await game.resolve(1, default_choice="support")).status_code == 201
    await game.set_faith(p2=3)
    assert_problem(await decide_as(game, "p2", 2, "p2", "support"), 409, "not-eligible")


async def test_choice_can_change_until_resolution(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    await game.set_faith(p1=5, p2=5, p3=5)
    for choice in ("support", "refuse", "support", "refuse"):
        response = await decide_as(game, "p2", 1, "p2", choice)
        assert response.status_code == 200
        assert decisions(response.json())[1] == ("p2", True, choice)
    resolved = await game.resolve(1, default_choice="support")
    outcomes = {o["player_id"]: o for o in resolved.json()["outcomes"]}
    assert outcomes["p2"]["outcome"] == "excommunicated" and outcomes["p2"]["faith_after"] == 5
    assert outcomes["p3"]["outcome"] == "supported"
    before = await snapshot(game)
    for who in (None, "p2"):
        assert_problem(await decide_as(game, who, 1, "p2", "support"), 409, "report-resolved")
    await assert_unchanged(game, before)


async def test_reports_resolve_in_period_order(client: httpx.AsyncClient, game: GameHandle) -> None:
    await game.set_faith(p1=5, p2=5, p3=5)
    before = await snapshot(game)
    assert_problem(await decide_as(game, None, 2, "p1", "support"), 409, "report-out-of-order")
    assert_problem(await decide_as(game, "p1", 3, "p1", "support"), 409, "report-out-of-order")
    assert_problem(await game.resolve(2, default_choice="support"), 409, "report-out-of-order")
    assert_problem(await game.resolve(3), 409, "report-out-of-order")
    await assert_unchanged(game, before)
    assert (await game.resolve(1, default_choice="support")).status_code == 201
    await game.set_faith(p1=5, p2=5, p3=5)
    assert_problem(await game.resolve(3), 409, "report-out-of-order")
    assert (await decide_as(game, "p1", 2, "p1", "refuse")).status_code == 200


async def test_resolution_is_host_only(client: httpx.AsyncClient, game: GameHandle) -> None:
    await game.set_faith(p1=1, p2=1, p3=1)
    before = await snapshot(game)
    for who in ("p1", "p2"):
        response = await client.post(
            f"{game.url}/reports/1/resolution", json={}, headers=game.player(who)
        )
        assert_problem(response, 403, "forbidden")
    anonymous = await client.post(f"{game.url}/reports/1/resolution", json={})
    assert_problem(anonymous, 401, "unauthorized")
    for body, loc in (
        ({"default_choice": "maybe"}, ["body", "default_choice"]),
        ({"default_choice": "support", "force": True}, ["body", "force"]),
    ):
        response = await client.post(
            f"{game.url}/reports/1/resolution", json=body, headers=game.host()
        )
        assert_problem(response, 422, "validation-error", loc=loc)
    await assert_unchanged(game, before)


async def test_decisions_pending_in_turn_order_and_nothing_written(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    await game.set_faith(p1=6, p2=1, p3=3)
    order = await client.put(
        f"{game.url}/turn-order", json={"turn_order": ["p3", "p2", "p1"]}, headers=game.host()
    )
    assert order.status_code == 200
    before = await snapshot(game)
    body = assert_problem(await game.resolve(1), 409, "decisions-pending")
    assert body["pending"] == ["p3", "p1"]
    await assert_unchanged(game, before)
    assert (await decide_as(game, "p3", 1, "p3", "support")).status_code == 200
    body = assert_problem(await game.resolve(1), 409, "decisions-pending")
    assert body["pending"] == ["p1"]
    assert (await decide_as(game, None, 1, "p1", "refuse")).status_code == 200
    resolved = await game.resolve(1)
    assert resolved.status_code == 201, resolved.text
    assert [o["player_id"] for o in resolved.json()["outcomes"]] == ["p3", "p2", "p1"]


async def test_resolution_applies_every_outcome_atomically(
    client: httpx.AsyncClient,
) -> None:
    """Five players, so with Houses of Renaissance (R-PLY-1); the tiles seed 42 draws from
    the base pools."""
    game = await create_game(
        client,
        expansions=FIVE_SEATS,
        seed=None,
        tiles={"1": "I-6", "2": "II-3", "3": "III-7"},
        players=[
            {"name": "Anna", "leaders": ["sisto_iv"]},
            {"name": "Bruno"},
            {"name": "Carla"},
            {"name": "Dario", "leaders": ["martin_lutero"]},
            {"name": "Elena", "leaders": ["martin_lutero"]},
        ],
    )
    await game.set_faith(p1=5, p2=2, p3=9, p4=1, p5=7)
    await decide_as(game, "p3", 1, "p3", "refuse")
    await decide_as(game, "p5", 1, "p5", "refuse")
    await decide_as(game, "p1", 1, "p1", "support")
    response = await game.resolve(1)
    assert response.status_code == 201, response.text
    assert response.headers["etag"] == '"6"'
    report = response.json()
    assert report["status"] == "resolved" and report["resolved_at"]
    outcomes = {o["player_id"]: o for o in report["outcomes"]}
    summary = {
        pid: (o["outcome"], o["faith_before"], o["faith_after"], o["tile_id"])
        for pid, o in outcomes.items()
    }
    assert summary == {
        "p1": ("supported", 5, 0, None),
        "p2": ("excommunicated", 2, 2, "I-6"),
        "p3": ("excommunicated", 9, 9, "I-6"),
        "p4": ("spared", 1, 1, None),
        "p5": ("refused", 7, 7, None),
    }
    assert outcomes["p1"]["victory_points"] == {"faith": 5, "sisto_iv": 5, "total": 10}
    state = await game.read()
    assert state["version"] == 6
    assert state["reports"][0] == {"period": 1, "status": "resolved", "threshold": 3}
    assert [r["status"] for r in state["reports"][1:]] == ["open", "open"]
    players = {p["id"]: p for p in state["players"]}
    for pid, outcome in outcomes.items():
        assert players[pid]["faith"] == outcome["faith_after"]
        assert players[pid]["report_victory_points"] == outcome["victory_points"]["total"]
        expected = [{"period": 1, "tile_id": "I-6"}] if outcome["excommunicated"] else []
        assert players[pid]["excommunications"] == expected
    # The report read afterwards shows the same outcomes and who was eligible then.
    read = await get_report(game, 1, player="p4")
    assert read["outcomes"] == report["outcomes"]
    assert decisions(read) == [
        ("p1", True, "support"),
        ("p2", False, None),
        ("p3", True, "refuse"),
        ("p4", False, None),
        ("p5", True, "refuse"),
    ]
    assert read["status"] == "resolved"


async def test_second_resolution_is_report_resolved(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    await game.set_faith(p1=1, p2=1, p3=1)
    assert (await game.resolve(1)).status_code == 201
    before = await snapshot(game)
    for body in ({}, {"default_choice": "support"}):
        assert_problem(await game.resolve(1, **body), 409, "report-resolved")
    await assert_unchanged(game, before)


async def test_default_choice_fills_only_the_undecided(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    await game.set_faith(p1=6, p2=6, p3=6)
    await decide_as(game, "p2", 1, "p2", "support")
    response = await game.resolve(1, default_choice="refuse")
    outcomes = {o["player_id"]: o for o in response.json()["outcomes"]}
    assert outcomes["p1"]["outcome"] == "excommunicated"  # Anna: refuse by default
    assert outcomes["p1"]["victory_points"]["sisto_iv"] == 0
    assert outcomes["p2"]["outcome"] == "supported"
    assert outcomes["p3"]["outcome"] == "excommunicated"
    assert any("default" in note for note in outcomes["p3"]["notes"])


async def test_a_choice_made_then_left_short_is_ignored_with_a_note(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    await game.set_faith(p1=1, p2=5, p3=1)
    await decide_as(game, "p2", 1, "p2", "support")
    await game.set_faith(p2=2)
    response = await game.resolve(1)
    assert response.status_code == 201, response.text
    p2 = next(o for o in response.json()["outcomes"] if o["player_id"] == "p2")
    assert p2["outcome"] == "excommunicated" and p2["tile_id"] == "I-6"
    assert any("ignored" in note for note in p2["notes"])


async def test_r_rep_6_last_report_needs_no_decisions(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    await game.set_faith(p1=1, p2=1, p3=1)
    await game.resolve(1)
    await game.set_faith(p1=1, p2=1, p3=1)
    await game.resolve(2)
    await game.set_faith(p1=8, p2=4, p3=15)
    response = await game.resolve(3, default_choice="refuse")
    assert response.status_code == 201, response.text
    outcomes = {o["player_id"]: o for o in response.json()["outcomes"]}
    assert outcomes["p1"]["outcome"] == "supported"
    assert outcomes["p1"]["victory_points"] == {"faith": 11, "sisto_iv": 5, "total": 16}
    assert outcomes["p2"]["outcome"] == "excommunicated" and outcomes["p2"]["tile_id"] == "III-7"
    assert outcomes["p2"]["victory_points"]["total"] == 4 and outcomes["p2"]["faith_after"] == 0
    assert outcomes["p3"]["victory_points"]["total"] == 30
    state = await game.read()
    assert [p["faith"] for p in state["players"]] == [0, 0, 0]
    assert [p["report_victory_points"] for p in state["players"]] == [16, 4, 30]
    assert [[e["tile_id"] for e in p["excommunications"]] for p in state["players"]] == [
        ["I-6", "II-3"],
        ["I-6", "II-3", "III-7"],
        ["I-6", "II-3"],
    ]
    assert [r["status"] for r in state["reports"]] == ["resolved"] * 3


async def test_a_report_read_with_the_version_held_is_304_and_refuses_what_a_read_refuses(
    game: GameHandle,
) -> None:
    url = f"{game.url}/reports/2"
    held = await game.client.get(url, headers={**game.host(), "If-None-Match": '"1"'})
    assert held.status_code == 304 and held.content == b""
    assert held.headers["etag"] == '"1"'
    await game.set_faith(p1=4)
    stale = await game.client.get(url, headers={**game.player("p3"), "If-None-Match": '"1"'})
    assert stale.status_code == 200 and stale.headers["etag"] == '"2"'
    assert stale.json()["period"] == 2
    # No 304 without a valid token, and none for a game that is not there.
    assert_problem(
        await game.client.get(url, headers={"If-None-Match": '"2"'}), 401, "unauthorized"
    )
    gone = await game.client.get(
        f"/v1/games/{'0' * 32}/reports/2", headers={**game.host(), "If-None-Match": '"2"'}
    )
    assert_problem(gone, 404, "not-found")
    wrong = await game.client.get(f"{game.url}/reports/2", headers={"Authorization": "Bearer x"})
    assert_problem(wrong, 401, "unauthorized")
