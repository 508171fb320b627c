"""Undo and redo over HTTP, on SQLite and PostgreSQL: what the answers and the events carry,
that a client can apply an undo from its event alone, and that followers see it live."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx

from tests.api.conftest import GameHandle
from tests.api.test_api_support import assert_problem, events


async def _undo(game: GameHandle, **headers: str) -> httpx.Response:
    return await game.client.post(f"{game.url}/undo", headers={**game.host(), **headers})


async def _reports(game: GameHandle) -> list[dict[str, Any]]:
    found = []
    for period in (1, 2, 3):
        response = await game.client.get(f"{game.url}/reports/{period}", headers=game.host())
        found.append(response.json())
    return found


def _fold(
    document: dict[str, Any], reports: list[dict[str, Any]], event: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What a client holding ``document`` and ``reports`` makes of an undo or redo event,
    with no read: it puts the values the event carries in place."""
    data = event["data"]
    document = {**document, "version": event["seq"], "players": data["players"]}
    document["turn_order"] = data["turn_order"]
    document["round"] = data["round"]
    reports = list(reports)
    if data["report"] is not None:
        period = data["report"]["period"]
        reports[period - 1] = data["report"]
        document["reports"] = [
            {**r, "status": data["report"]["status"]} if r["period"] == period else r
            for r in document["reports"]
        ]
    # Eligibility follows faith: a client shows it as the track says (as for faith_set).
    faith = {p["id"]: p["faith"] for p in data["players"]}
    for report in reports:
        if report["status"] == "open":
            for decision in report["decisions"]:
                decision["eligible"] = min(faith[decision["player_id"]], 15) >= report["threshold"]
    return document, reports


async def test_a_client_applies_an_undo_from_its_event_alone(game: GameHandle) -> None:
    await game.set_faith(p1=5, p2=1, p3=9)
    assert (await game.decide(1, "p3", "refuse")).status_code == 200
    assert (await game.resolve(1, default_choice="support")).status_code == 201
    await game.set_faith(p2=6)
    for _ in range(3):  # faith, the resolution, the decision
        document, reports = await game.read(), await _reports(game)
        undone = await _undo(game)
        assert undone.status_code == 200, undone.text
        (event,) = await events(game, after=document["version"])
        assert event["type"] == "change_undone"
        assert event["data"]["seq"] == undone.json()["undone"]["seq"]
        assert _fold(document, reports, event) == (await game.read(), await _reports(game))
    for _ in range(3):
        document, reports = await game.read(), await _reports(game)
        redone = await game.client.post(f"{game.url}/redo", headers=game.host())
        assert redone.status_code == 200, redone.text
        (event,) = await events(game, after=document["version"])
        assert event["type"] == "change_redone"
        assert _fold(document, reports, event) == (await game.read(), await _reports(game))


async def test_an_undo_answers_its_etag_and_with_if_match_cannot_undo_twice(
    game: GameHandle,
) -> None:
    await game.set_faith(p1=5)
    await game.set_faith(p1=8)
    first = await _undo(game, **{"If-Match": '"3"'})
    assert (first.status_code, first.headers["etag"]) == (200, '"4"')
    body = first.json()
    assert body["undone"] == {"seq": 3, "type": "faith_set"}
    assert body["game"]["players"][0]["faith"] == 5 and body["game"]["version"] == 4
    again = await _undo(game, **{"If-Match": '"3"'})
    assert_problem(again, 412, "version-mismatch")
    assert (await game.read())["players"][0]["faith"] == 5


async def test_an_undo_retried_with_its_key_replays_the_first_answer(game: GameHandle) -> None:
    await game.set_faith(p1=5)
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = await _undo(game, **key)
    again = await _undo(game, **key)
    assert again.headers["idempotent-replayed"] == "true" and again.content == first.content
    assert (await game.read())["version"] == 3
    assert_problem(await _undo(game), 409, "nothing-to-undo")


async def test_an_undone_resolution_resolves_again_with_a_new_key(game: GameHandle) -> None:
    """Ruling 15: the old key replays the first answer; a new one resolves again."""
    await game.set_faith(p1=5)
    url = f"{game.url}/reports/1/resolution"
    key = {**game.host(), "Idempotency-Key": str(uuid.uuid4())}
    first = await game.client.post(url, json={"default_choice": "refuse"}, headers=key)
    assert first.status_code == 201
    assert (await _undo(game)).json()["game"]["reports"][0]["status"] == "open"
    replay = await game.client.post(url, json={"default_choice": "refuse"}, headers=key)
    assert replay.headers["idempotent-replayed"] == "true" and replay.content == first.content
    assert (await game.read())["reports"][0]["status"] == "open"
    fresh = {**game.host(), "Idempotency-Key": str(uuid.uuid4())}
    again = await game.client.post(url, json={"default_choice": "support"}, headers=fresh)
    assert again.status_code == 201, again.text
    assert again.json()["outcomes"][0]["outcome"] == "supported"  # p1 supports now
    assert_problem(await game.resolve(1), 409, "report-resolved")


async def test_a_new_change_clears_the_redo(game: GameHandle) -> None:
    await game.set_faith(p1=5)
    assert (await _undo(game)).json()["redo"] == {"seq": 2, "type": "faith_set"}
    await game.set_faith(p2=3)
    redo = await game.client.post(f"{game.url}/redo", headers=game.host())
    assert_problem(redo, 409, "nothing-to-redo")


async def test_a_long_poll_wakes_on_an_undo(game: GameHandle) -> None:
    await game.set_faith(p1=5)
    poll = asyncio.create_task(
        game.client.get(
            f"{game.url}/events", params={"after": 2, "wait": 25}, headers=game.player("p2")
        )
    )
    await asyncio.sleep(0.3)
    assert not poll.done()
    assert (await _undo(game)).status_code == 200
    answer = await asyncio.wait_for(poll, 20)
    assert [e["type"] for e in answer.json()["events"]] == ["change_undone"]
