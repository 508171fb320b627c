"""The front serves the explicit routes itself, and answers exactly as when FastAPI's own
stack serves them (its router, exception middleware and handlers): the same request sent
both ways gets the same status, headers and body, and is logged under the same route,
for right and wrong requests of every kind. The front's own parts (request id, 413,
CORS, HEAD, 406) are around both."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from app.api.platform.front import ServiceApp
from app.asgi_extensions import mark_answered_by_server
from app.main import create_app
from app.settings import Settings
from tests.settings import LIMITS_OFF

# Differ on every answer, whoever serves it.
_PER_ANSWER = {"x-request-id", "date"}


@pytest.fixture
def app(database_url: str) -> Iterator[ServiceApp]:
    settings = Settings(
        database_url=database_url,
        cors_origins="https://table.example",
        max_body_bytes=4096,
        **LIMITS_OFF,
    )
    app = create_app(settings)
    yield app
    app.state.db.dispose()


@pytest.fixture
async def client(app: ServiceApp) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


@pytest.fixture
async def game(client: httpx.AsyncClient) -> dict[str, Any]:
    created = await client.post(
        "/v1/games",
        json={"players": [{"name": "Anna", "leaders": ["sisto_iv"]}, {"name": "Bruno"}], "seed": 7},
    )
    assert created.status_code == 201, created.text
    return dict(created.json())


def _requests(game: dict[str, Any]) -> list[tuple[str, str, dict[str, str], Any]]:
    """(method, path, headers, body) of right and wrong requests to every kind of route;
    a change is sent with the value it already has (the second send changes nothing)."""
    url = f"/v1/games/{game['game']['id']}"
    host = {"Authorization": f"Bearer {game['host_token']}"}
    anna = {"Authorization": f"Bearer {game['player_tokens']['p1']}"}
    wrong = {"Authorization": "Bearer not-a-token"}
    json_ = {"Content-Type": "application/json"}
    return [
        ("GET", "/healthz", {}, None),
        ("HEAD", "/healthz", {}, None),
        ("GET", "/v1/faith-track", {}, None),
        ("GET", "/v1/excommunication-tiles", {}, None),
        ("GET", "/v1/excommunication-tiles?period=2&expansion=base", {}, None),
        ("GET", "/v1/excommunication-tiles?period=9", {}, None),
        ("GET", "/v1/excommunication-tiles?period=x&expansion=nope", {}, None),
        ("GET", "/v1/excommunication-tiles/I-1", {}, None),
        ("GET", "/v1/excommunication-tiles/none", {}, None),
        ("POST", "/v1/tile-draws", json_, {"seed": 3}),
        ("POST", "/v1/tile-draws", {"Content-Type": "text/plain"}, "seed"),
        ("POST", "/v1/tile-draws", json_, '{"seed": 3, "seed": 4}'),
        ("POST", "/v1/tile-draws", json_, "{not json"),
        ("POST", "/v1/calculations/gains", json_, {"gains": []}),
        ("POST", "/v1/calculations/gains", json_, {"unknown": 1}),
        ("GET", "/v1/calculations/gains", {}, None),
        ("DELETE", "/healthz", {}, None),
        ("GET", url, host, None),
        ("HEAD", url, host, None),
        ("GET", url, anna, None),
        ("GET", url, wrong, None),
        ("GET", url, {}, None),
        ("GET", url, {**host, "If-None-Match": '"1"'}, None),
        ("GET", url, {**host, "If-None-Match": '"99"'}, None),
        ("GET", url, {**host, "Accept": "text/html"}, None),
        ("GET", url, {**host, "Accept": "application/json;q=0.5"}, None),
        ("GET", "/v1/games/" + "0" * 32, host, None),
        ("GET", "/v1/games/not-an-id", host, None),
        ("PUT", f"{url}/players/p1/faith", {**host, **json_}, {"faith": 4}),
        ("PUT", f"{url}/players/p1/faith", {**host, **json_}, {"faith": -1}),
        ("PUT", f"{url}/players/p9/faith", {**host, **json_}, {"faith": 4}),
        ("PUT", f"{url}/players/p1/faith", {**wrong, **json_}, {"faith": 4}),
        ("PUT", f"{url}/players/p2/faith", {**anna, **json_}, {"faith": 4}),
        ("PUT", f"{url}/players/p1/faith", {**host, **json_, "If-Match": '"1"'}, {"faith": 4}),
        ("PUT", f"{url}/players/p1/faith", {**host, "Accept": "text/plain"}, {"faith": 4}),
        ("POST", f"{url}/players/p1/faith-changes", {**host, "Idempotency-Key": "aaaa"}, {}),
        ("PUT", f"{url}/reports/1/decisions/p1", {**host, **json_}, {"choice": "maybe"}),
        ("GET", f"{url}/reports/1", host, None),
        ("GET", f"{url}/reports/7", host, None),
        ("GET", f"{url}/events?after=0&limit=5", host, None),
        ("GET", f"{url}/events?limit=0", host, None),
        ("GET", f"{url}/events?after=\uff11", host, None),  # a fullwidth digit one
        ("POST", f"{url}/recovery", json_, {"recovery_code": "AAAA-AAAA-AAAA-AAAA"}),
        ("PATCH", url, host, None),
        ("GET", "/problems/not-found", {}, None),
        ("GET", "/problems/nope", {}, None),
        ("GET", "/nowhere", {}, None),
        ("GET", "/v1/games/", {}, None),
        ("OPTIONS", url, {}, None),
        (
            "OPTIONS",
            url,
            {"Origin": "https://table.example", "Access-Control-Request-Method": "PUT"},
            None,
        ),
        ("GET", url, {**host, "Origin": "https://table.example"}, None),
        ("GET", url, {**host, "Origin": "https://elsewhere.example"}, None),
        ("POST", "/v1/calculations/gains", {**json_, "Content-Length": "5000"}, "x" * 5000),
    ]


async def _send(
    client: httpx.AsyncClient, method: str, path: str, headers: dict[str, str], body: Any
) -> httpx.Response:
    content = body if isinstance(body, str) else None if body is None else json.dumps(body)
    return await client.request(method, path, headers=headers, content=content)


def _seen(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = sorted((k, v) for k, v in response.headers.items() if k not in _PER_ANSWER)
    return response.status_code, headers, response.content


async def test_each_request_is_answered_as_fastapis_stack_answers_it(
    app: ServiceApp,
    client: httpx.AsyncClient,
    game: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    front = app.front
    served_by_fastapi = 0
    original = app.serve_by_fastapi

    async def counted(*args: Any) -> None:
        nonlocal served_by_fastapi
        served_by_fastapi += 1
        await original(*args)

    monkeypatch.setattr(app, "serve_by_fastapi", counted)
    for method, path, headers, body in _requests(game):
        with caplog.at_level(logging.INFO, logger="app.access"):
            caplog.clear()
            monkeypatch.setattr(front, "serves", lambda route: False)
            by_fastapi = await _send(client, method, path, headers, body)
            monkeypatch.undo()
            monkeypatch.setattr(app, "serve_by_fastapi", counted)
            before = served_by_fastapi
            by_front = await _send(client, method, path, headers, body)
            lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "app.access"]
        where = f"{method} {path} {headers}"
        assert _seen(by_front) == _seen(by_fastapi), where
        assert [line["route"] for line in lines[:1]] == [line["route"] for line in lines[1:]], where
        if lines[0]["route"] not in ("unmatched", "/docs"):
            assert served_by_fastapi == before, f"{where}: the front did not serve it"


async def test_fastapis_stack_serves_what_the_front_does_not(client: httpx.AsyncClient) -> None:
    docs = await client.get("/openapi.json")
    assert docs.status_code == 200 and docs.json()["openapi"].startswith("3.1")
    assert docs.headers["x-request-id"]
    redirect = await client.get("/table")
    assert redirect.status_code in (307, 308, 200)
    assert redirect.headers["x-request-id"]


@pytest.mark.parametrize("status", [400, 408])
async def test_a_request_the_server_answered_itself_is_recorded_with_that_status(
    app: ServiceApp, caplog: pytest.LogCaptureFixture, status: int
) -> None:
    """The server answered the request while its body was being read (a broken body, a
    body that did not come in time) and tells the app the client is gone: the access line
    says what the client was answered, not a client's 499, under the request id the
    client was answered (app/asgi_extensions.py)."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/calculations/final-scores",
        "raw_path": b"/v1/calculations/final-scores",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"test"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        mark_answered_by_server(scope, status, "answered-by-the-edge")
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    with caplog.at_level(logging.INFO, logger="app.access"):
        await app(scope, receive, send)
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "app.access"]
    assert [(line["path"], line["status"], line["request_id"]) for line in lines] == [
        ("/v1/calculations/final-scores", status, "answered-by-the-edge")
    ]
    assert not any("client disconnected" in r.getMessage() for r in caplog.records)
