"""Seats over HTTP, on SQLite and PostgreSQL: the recovery code shown once at creation, a
seat's token issued anew or revoked, the host seat recovered; every answer with a token or
a code is no-store, and the log never holds one."""

from __future__ import annotations

import contextlib
import re
import uuid

import httpx
from fastapi import FastAPI

from tests.api.conftest import GameHandle, create_game
from tests.api.test_api_support import assert_problem, events

CODE = re.compile(r"^[A-Z2-7]{4}(-[A-Z2-7]{4}){7}$")


async def test_creation_shows_a_recovery_code_once_and_no_cache_keeps_it(
    client: httpx.AsyncClient,
) -> None:
    body = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 3}
    key = {"Idempotency-Key": str(uuid.uuid4())}
    created = await client.post("/v1/games", json=body, headers=key)
    replay = await client.post("/v1/games", json=body, headers=key)
    for answer in (created, replay):
        assert answer.headers["cache-control"] == "no-store"
    code = created.json()["recovery_code"]
    assert CODE.match(code) and replay.json()["recovery_code"] == code
    other = await client.post("/v1/games", json=body)
    assert other.json()["recovery_code"] != code
    game = created.json()["game"]
    listed = await client.get(
        f"/v1/games/{game['id']}",
        headers={"Authorization": f"Bearer {created.json()['host_token']}"},
    )
    assert code not in listed.text and "recovery" not in listed.text


async def test_a_new_token_for_a_seat_refuses_the_old_one(game: GameHandle) -> None:
    issued = await game.client.post(f"{game.url}/seats/p2/token", headers=game.host())
    assert issued.status_code == 200, issued.text
    assert (issued.headers["cache-control"], issued.headers["etag"]) == ("no-store", '"2"')
    token = issued.json()["token"]
    assert issued.json()["seat"] == "p2"
    assert_problem(await game.client.get(game.url, headers=game.player("p2")), 401, "unauthorized")
    fresh = {"Authorization": f"Bearer {token}"}
    decided = await game.client.put(
        f"{game.url}/reports/1/decisions/p2", json={"choice": "support"}, headers=fresh
    )
    assert_problem(decided, 409, "not-eligible")  # the new token acts for p2
    log = await events(game)
    assert log[-1]["type"] == "seat_token_changed"
    assert log[-1]["data"] == {"seat": "p2", "change": "reissued"}
    assert token not in str(log)


async def test_the_host_seat_moves_and_the_old_host_token_is_refused(game: GameHandle) -> None:
    moved = await game.client.post(f"{game.url}/seats/host/token", headers=game.host())
    assert moved.status_code == 200
    assert_problem(await game.client.get(game.url, headers=game.host()), 401, "unauthorized")
    game.host_token = moved.json()["token"]
    await game.set_faith(p1=3)


async def test_a_revoked_token_is_refused_everywhere(game: GameHandle) -> None:
    revoked = await game.client.delete(f"{game.url}/seats/p3/token", headers=game.host())
    assert (revoked.status_code, revoked.headers["etag"], revoked.content) == (204, '"2"', b"")
    p3 = game.player("p3")
    for method, path in (("GET", ""), ("GET", "/events"), ("GET", "/reports/1")):
        assert_problem(
            await game.client.request(method, game.url + path, headers=p3), 401, "unauthorized"
        )
    again = await game.client.delete(f"{game.url}/seats/p3/token", headers=game.host())
    assert (again.status_code, again.headers["etag"]) == (204, '"2"')  # nothing logged
    host_seat = await game.client.delete(f"{game.url}/seats/host/token", headers=game.host())
    assert_problem(host_seat, 422, "validation-error", loc=["path", "seat"])


async def test_the_recovery_code_regains_the_host_seat_once(client: httpx.AsyncClient) -> None:
    created = await client.post("/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]})
    data = created.json()
    url = f"/v1/games/{data['game']['id']}/recovery"
    key = {"Idempotency-Key": str(uuid.uuid4())}
    spaced = {"recovery_code": data["recovery_code"].lower().replace("-", " ")}
    recovered = await client.post(url, json=spaced, headers=key)
    assert recovered.status_code == 200, recovered.text
    assert (recovered.headers["cache-control"], recovered.headers["etag"]) == ("no-store", '"2"')
    body = recovered.json()
    assert CODE.match(body["recovery_code"]) and body["recovery_code"] != data["recovery_code"]
    replay = await client.post(url, json=spaced, headers=key)
    assert replay.headers["idempotent-replayed"] == "true" and replay.content == recovered.content
    assert replay.headers["cache-control"] == "no-store"
    old_host = {"Authorization": f"Bearer {data['host_token']}"}
    assert_problem(
        await client.get(f"/v1/games/{data['game']['id']}", headers=old_host), 401, "unauthorized"
    )
    spent = await client.post(url, json={"recovery_code": data["recovery_code"]})
    assert_problem(spent, 401, "unauthorized")
    again = await client.post(url, json={"recovery_code": body["recovery_code"]})
    assert again.status_code == 200
    # A player's token is not a recovery code, and the answers say nothing of the code.
    player = {"recovery_code": data["player_tokens"]["p1"]}
    assert_problem(await client.post(url, json=player), 401, "unauthorized")


async def test_the_recovery_of_another_game_is_refused(client: httpx.AsyncClient) -> None:
    one = (await client.post("/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]})).json()
    other = await create_game(client)
    answer = await client.post(
        f"{other.url}/recovery", json={"recovery_code": one["recovery_code"]}
    )
    assert_problem(answer, 401, "unauthorized")


async def test_a_stranger_trying_recovery_codes_holds_no_write_slot(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """A recovery carries no token: its code is checked before it takes what the changes
    of every game share (a write slot, its game's turn), as a change's token is. With every
    write slot held, a wrong code or an unknown game is answered at once (401, 404), not
    a 503 once the wait for a slot ran out; the right code still waits for a slot like
    any change, and a retry of a spent code with its Idempotency-Key still replays."""
    players = {"players": [{"name": "A"}, {"name": "B"}]}
    created = (await client.post("/v1/games", json=players)).json()
    url = f"/v1/games/{created['game']['id']}/recovery"
    code = {"recovery_code": created["recovery_code"]}
    wrong = {"recovery_code": "AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA"}
    key = {"Idempotency-Key": str(uuid.uuid4())}
    gate = app.state.write_admission
    gate.wait_s = 0.3
    async with contextlib.AsyncExitStack() as held:
        for _ in range(gate.slots):
            await held.enter_async_context(gate.creation())
        assert_problem(await client.post(url, json=wrong), 401, "unauthorized")
        assert_problem(await client.post(url, json=wrong, headers=key), 401, "unauthorized")
        unknown = await client.post("/v1/games/" + "0" * 32 + "/recovery", json=wrong)
        assert_problem(unknown, 404, "not-found")
        assert_problem(await client.post(url, json=code, headers=key), 503, "service-unavailable")
    recovered = await client.post(url, json=code, headers=key)
    assert recovered.status_code == 200, recovered.text
    replay = await client.post(url, json=code, headers=key)  # the code is spent by now
    assert replay.headers["idempotent-replayed"] == "true" and replay.content == recovered.content
    assert_problem(await client.post(url, json=code), 401, "unauthorized")
