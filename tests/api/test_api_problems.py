"""API.md "Problem type slugs": every slug of the contract reached through a real endpoint,
each answer a well-formed problem (content type, type/status/title/detail, X-Request-ID)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from fastapi import FastAPI

from app.api.schemas.games import GameCreate
from app.main import create_app
from app.services.idempotency import request_fingerprint
from app.settings import Settings
from tests.api.conftest import GameHandle, create_game
from tests.api.test_api_idempotency import in_flight
from tests.api.test_api_support import CONTRACT_SLUGS, assert_problem

KEY_1 = "k1-0123456789abcdefghijkl"
KEY_2 = "k2-0123456789abcdefghijkl"
DOWN_URL = "postgresql://postgres@127.0.0.1:1/down"


async def test_every_contract_slug_through_a_real_endpoint(
    client: httpx.AsyncClient, app: FastAPI, game: GameHandle, tmp_path: Path
) -> None:
    seen: dict[str, int] = {}
    url = game.url

    async def check(slug: str, call: Callable[[], Awaitable[httpx.Response]]) -> None:
        response = await call()
        body = assert_problem(response, CONTRACT_SLUGS[slug], slug)
        assert body.get("instance", response.request.url.path) == response.request.url.path
        seen[slug] = response.status_code

    await check("validation-error", lambda: client.post("/v1/games", json={"players": []}))
    await check("unauthorized", lambda: client.get(url))
    await check(
        "forbidden",
        lambda: client.put(
            f"{url}/turn-order", json={"turn_order": ["p2", "p1", "p3"]}, headers=game.player("p1")
        ),
    )
    await check("not-found", lambda: client.get("/v1/excommunication-tiles/IV-1"))
    await check("not-found", lambda: client.get("/v1/no-such-route"))
    await game.set_faith(p1=5, p2=1, p3=1)
    await check("decisions-pending", lambda: game.resolve(1))
    await check("not-eligible", lambda: game.decide(1, "p2", "support"))
    await check("report-out-of-order", lambda: game.resolve(2))
    await check(
        "version-mismatch",
        lambda: client.put(
            f"{url}/players/p1/faith", json={"faith": 1}, headers={**game.host(), "If-Match": '"1"'}
        ),
    )
    assert (await game.resolve(1, default_choice="support")).status_code == 201
    await check("report-resolved", lambda: game.decide(1, "p1", "refuse"))
    body = {"players": [{"name": "X"}, {"name": "Y"}], "seed": 1}
    assert (
        await client.post("/v1/games", json=body, headers={"Idempotency-Key": KEY_1})
    ).status_code == 201
    await check(
        "idempotency-key-reused",
        lambda: client.post(
            "/v1/games", json={**body, "seed": 2}, headers={"Idempotency-Key": KEY_1}
        ),
    )
    fingerprint = request_fingerprint(
        "createGame", GameCreate.model_validate(body).model_dump_json(by_alias=True)
    )
    with in_flight(app, "createGame", KEY_2, fingerprint):
        await check(
            "idempotency-in-flight",
            lambda: client.post("/v1/games", json=body, headers={"Idempotency-Key": KEY_2}),
        )
    huge = {"players": [{"name": f"P{i}", "leaders": []} for i in range(5000)]}
    await check("payload-too-large", lambda: client.post("/v1/games", json=huge))
    await check(
        "unknown-expansion",
        lambda: client.post("/v1/tile-draws", json={"expansions": ["base", "moon"]}),
    )

    down = create_app(Settings(database_url=DOWN_URL, retry_after_seconds=4))
    transport = httpx.ASGITransport(app=down)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as offline:
            unavailable = await offline.get(url, headers=game.host())
            await check("service-unavailable", lambda: _same(unavailable))
            assert unavailable.headers["retry-after"] == "4"
            created = await offline.post("/v1/games", json=body)
            assert_problem(created, 503, "service-unavailable")
            # Stateless calculations need no database.
            draw = await offline.post("/v1/tile-draws", json={"seed": 42})
            assert draw.status_code == 200
    finally:
        down.state.db.dispose()

    assert seen == CONTRACT_SLUGS


async def _same(response: httpx.Response) -> httpx.Response:
    return response


async def test_problem_echoes_the_request_id(client: httpx.AsyncClient, game: GameHandle) -> None:
    response = await client.put(
        f"{game.url}/players/p1/faith",
        json={"faith": 1},
        headers={**game.player("p2"), "X-Request-ID": "trace-42"},
    )
    assert_problem(response, 403, "forbidden")
    assert response.headers["x-request-id"] == "trace-42"
    ok = await client.get(game.url, headers={**game.host(), "X-Request-ID": "trace-43"})
    assert ok.headers["x-request-id"] == "trace-43"


async def test_validation_errors_name_each_field(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/v1/games",
        json={"players": [{"name": "A", "age": 3}, {"name": 5}], "seed": 1.5},
    )
    body = assert_problem(response, 422, "validation-error")
    locs = {tuple(e["loc"]) for e in body["errors"]}
    assert ("body", "players", 0, "age") in locs
    assert ("body", "players", 1, "name") in locs
    assert ("body", "seed") in locs
    assert all(e["msg"] for e in body["errors"])


async def test_never_a_500_for_bad_input(client: httpx.AsyncClient) -> None:
    handle = await create_game(client)
    junk = [b"", b"{", b"[]", b"null", b'"x"', b"\xff\xfe", b'{"faith": 1e400}']
    for content in junk:
        for method, path in (
            ("POST", "/v1/games"),
            ("PUT", f"{handle.url}/players/p1/faith"),
            ("PUT", f"{handle.url}/faith"),
            ("POST", f"{handle.url}/reports/1/resolution"),
            ("POST", "/v1/calculations/gains"),
            ("POST", "/v1/calculations/final-scores"),
        ):
            response = await client.request(
                method,
                path,
                content=content,
                headers={**handle.host(), "Content-Type": "application/json"},
            )
            assert response.status_code == 422, (method, path, content, response.text)
            assert_problem(response, 422, "validation-error")
