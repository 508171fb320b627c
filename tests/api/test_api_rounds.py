"""Rounds over HTTP, on SQLite and PostgreSQL: opt-in at creation; a game without them reads
and resolves as before."""

from __future__ import annotations

import httpx

from tests.api.conftest import GameHandle, create_game
from tests.api.test_api_support import assert_problem, events


async def _advance(game: GameHandle, **headers: str) -> httpx.Response:
    return await game.client.post(f"{game.url}/round-advances", headers={**game.host(), **headers})


async def test_a_game_without_rounds_has_a_null_round_and_resolves_at_any_time(
    game: GameHandle,
) -> None:
    assert game.game["round"] is None
    assert_problem(await _advance(game), 409, "rounds-not-tracked")
    assert (await game.resolve(1, default_choice="support")).status_code == 201


async def test_a_game_tracking_rounds_resolves_each_report_in_its_phase(
    client: httpx.AsyncClient,
) -> None:
    game = await create_game(client, track_rounds=True)
    assert game.game["round"] == {"number": 1, "phase": "play"}
    assert_problem(await game.resolve(1, default_choice="support"), 409, "not-in-report-phase")
    seen = []
    for period in (1, 2, 3):
        for _ in range(2):
            answer = await _advance(game)
            assert answer.status_code == 200, answer.text
            seen.append(answer.json()["round"])
        assert_problem(await _advance(game), 409, "report-still-open")
        assert (await game.resolve(period, default_choice="support")).status_code == 201
        if period < 3:
            seen.append((await _advance(game)).json()["round"])
    assert_problem(await _advance(game), 409, "last-round")
    assert [(r["number"], r["phase"]) for r in seen] == [
        (2, "play"), (2, "report"), (3, "play"),
        (4, "play"), (4, "report"), (5, "play"),
        (6, "play"), (6, "report"),
    ]  # fmt: skip
    log = await events(game)
    assert log[0]["data"]["track_rounds"] is True
    assert log[1]["data"] == {
        "from": {"number": 1, "phase": "play"},
        "to": {"number": 2, "phase": "play"},
    }


async def test_a_round_advance_is_undone_like_any_change_of_play(client: httpx.AsyncClient) -> None:
    game = await create_game(client, track_rounds=True)
    assert (await _advance(game, **{"If-Match": '"1"'})).status_code == 200
    assert_problem(await _advance(game, **{"If-Match": '"1"'}), 412, "version-mismatch")
    undone = await client.post(f"{game.url}/undo", headers=game.host())
    assert undone.json()["undone"]["type"] == "round_advanced"
    assert undone.json()["game"]["round"] == {"number": 1, "phase": "play"}
