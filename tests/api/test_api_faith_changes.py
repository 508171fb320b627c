"""Faith changes over HTTP, on SQLite and PostgreSQL (their concurrency, through real
servers: tests/integration/test_faith_changes.py)."""

from __future__ import annotations

import uuid

import httpx

from tests.api.conftest import GameHandle, create_game
from tests.api.test_api_support import assert_problem, assert_unchanged, events, snapshot


async def _change(game: GameHandle, player: str, delta: int, **headers: str) -> httpx.Response:
    return await game.client.post(
        f"{game.url}/players/{player}/faith-changes",
        json={"delta": delta},
        headers={**game.host(), **headers},
    )


async def test_a_change_answers_the_player_the_loss_and_what_was_applied(
    game: GameHandle,
) -> None:
    await game.set_faith(p1=13)
    answer = await _change(game, "p1", 4, **{"If-Match": '"2"'})
    assert (answer.status_code, answer.headers["etag"]) == (200, '"3"')
    body = answer.json()
    assert (body["player"]["id"], body["player"]["faith"]) == ("p1", 15)
    assert (body["faith_lost"], body["applied"]) == (2, 2)
    assert (await events(game))[-1] == {
        **(await events(game))[-1],
        "type": "faith_changed",
        "data": {"player_id": "p1", "delta": 4, "from": 13, "to": 15, "lost": 2},
    }
    floor = (await _change(game, "p2", -3)).json()
    assert (floor["player"]["faith"], floor["applied"], floor["faith_lost"]) == (0, 0, 0)


async def test_a_stale_if_match_is_412_and_writes_nothing(game: GameHandle) -> None:
    await game.set_faith(p1=3)
    before = await snapshot(game)
    assert_problem(await _change(game, "p1", 1, **{"If-Match": '"1"'}), 412, "version-mismatch")
    await assert_unchanged(game, before)


async def test_a_player_changes_its_own_faith_only_in_a_players_enter_faith_game(
    client: httpx.AsyncClient,
) -> None:
    game = await create_game(client, players_enter_faith=True)
    own = await client.post(
        f"{game.url}/players/p1/faith-changes", json={"delta": 2}, headers=game.player("p1")
    )
    assert own.status_code == 200 and own.json()["player"]["faith"] == 2
    other = await client.post(
        f"{game.url}/players/p2/faith-changes", json={"delta": 2}, headers=game.player("p1")
    )
    assert_problem(other, 403, "forbidden")


async def test_a_change_retried_with_its_key_counts_once(game: GameHandle) -> None:
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = await _change(game, "p2", 3, **key)
    again = await _change(game, "p2", 3, **key)
    assert again.headers["idempotent-replayed"] == "true" and again.content == first.content
    assert (await game.read())["players"][1]["faith"] == 3
    assert_problem(await _change(game, "p2", 1, **key), 422, "idempotency-key-reused")
