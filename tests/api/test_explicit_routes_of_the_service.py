"""Every route the service serves explicitly answers as FastAPI's own handler would: each
endpoint's signature behind an ExplicitRoute and behind FastAPI's handler, called with
the same requests (right and wrong path, query, header and body values), hands the
endpoint the same values, or answers the same problem (a 422's list included)."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any, get_type_hints

import httpx
import pytest
from fastapi import APIRouter, FastAPI, Response
from pydantic import BaseModel
from starlette.requests import HTTPConnection

from app.api.platform.explicit_route import ExplicitRoute
from app.api.problems import install_problem_handlers
from app.main import create_app
from app.settings import Settings
from tests.api.fastapis_own import FastAPIsOwnRoute

SERVICE = create_app(Settings(database_url="sqlite:///:memory:"))
ROUTES = [route for route in SERVICE.routes if isinstance(route, ExplicitRoute)]
# What the dependencies read from the app (the use cases, the settings...).
STATE = ("calculations", "catalogue", "game_service", "report_service", "history_service")
STATE += ("seat_service", "health", "live_hub", "settings", "write_admission")


def _echo(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """An endpoint with ``endpoint``'s signature that answers what it was called with."""

    def answer(values: dict[str, Any]) -> Response:
        shown = {
            name: "<request>" if isinstance(value, HTTPConnection) else repr(value)
            for name, value in values.items()
        }
        return Response(json.dumps(shown, sort_keys=True), media_type="application/json")

    if inspect.iscoroutinefunction(endpoint):

        async def echo(**values: Any) -> Response:
            return answer(values)
    else:

        def echo(**values: Any) -> Response:  # type: ignore[misc]
            return answer(values)

    signature = inspect.signature(endpoint, eval_str=True)
    echo.__signature__ = signature.replace(return_annotation=Response)  # type: ignore[attr-defined]
    echo.__annotations__ = {**get_type_hints(endpoint, include_extras=True), "return": Response}
    return echo


def _app(route_class: type[Any]) -> FastAPI:
    router = APIRouter(route_class=route_class)
    for route in ROUTES:
        methods = sorted(route.methods - {"HEAD"})
        router.add_api_route(route.path, _echo(route.endpoint), methods=methods, name=route.name)
    app = FastAPI(routes=router.routes) if route_class is ExplicitRoute else FastAPI()
    if route_class is not ExplicitRoute:
        app.include_router(router)
    install_problem_handlers(app)
    for name in STATE:
        setattr(app.state, name, getattr(SERVICE.state, name))
    return app


@pytest.fixture
async def clients() -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    ours = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=_app(ExplicitRoute)), base_url="http://t"
    )
    own = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=_app(FastAPIsOwnRoute)), base_url="http://t"
    )
    async with ours, own:
        yield ours, own


PATH_VALUES = {"game_id": ["g1"], "player_id": ["p1"], "tile_id": ["III_1"]}
PATH_VALUES |= {"period": ["2", "0", "x", "1.0"], "seat": ["host", "s" * 17]}
PATH_VALUES |= {"slug": ["not-found", "nope"]}
QUERIES = ["", "?after=3&limit=10&wait=1.5&period=2&expansion=base"]
QUERIES += ["?after=x&limit=0&wait=nan&period=4&expansion=" + "e" * 40, "?after=-1&limit=1e3"]
HEADERS: list[list[tuple[str, str]]] = [
    [],
    [("Authorization", "Bearer t"), ("If-Match", '"3"'), ("If-None-Match", 'W/"2", "5"')],
    [("Idempotency-Key", "1b4e28ba-2fa1-41d2-883f-0016d3cca427"), ("Last-Event-ID", "7")],
    [("Idempotency-Key", "short"), ("Last-Event-ID", "x")],
    [("Authorization", "Bearer a"), ("Authorization", "Bearer b")],
]


def _paths(path: str) -> list[str]:
    names = re.findall(r"{(\w+)}", path)
    paths = [path.replace("{", "").replace("}", "")]
    for name in names:
        paths = [p.replace(name, value, 1) for p in paths for value in PATH_VALUES[name]]
    return paths


def _bodies(route: ExplicitRoute) -> list[tuple[str | None, bytes]]:
    models = [
        p.annotation
        for p in inspect.signature(route.endpoint, eval_str=True).parameters.values()
        if inspect.isclass(p.annotation) and issubclass(p.annotation, BaseModel)
    ]
    if not models:
        return [("application/json", b"")]
    extra = models[0].model_config.get("json_schema_extra")
    examples = extra.get("examples", []) if isinstance(extra, dict) else []
    bodies: list[tuple[str | None, bytes]] = [
        ("application/json", json.dumps(example).encode()) for example in examples
    ]
    return [
        *bodies,
        ("application/json", b""),
        ("application/json", b"{}"),
        ("application/json", b'{"a": 1, "a": 2}'),
        ("application/json", b"[1,"),
        (None, b"{}"),
        ("text/plain", b"{}"),
    ]


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: f"{route.name}")
async def test_the_route_answers_as_fastapis_handler(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient], route: ExplicitRoute
) -> None:
    ours, own = clients
    (method,) = route.methods - {"HEAD"}
    # Only the reads take query values; only the others, bodies.
    queries = QUERIES if method == "GET" else [""]
    for path in _paths(route.path):
        for query in queries:
            for headers in HEADERS:
                for content_type, body in _bodies(route):
                    sent = [*headers, *([("Content-Type", content_type)] if content_type else [])]
                    url = path + query
                    mine = await ours.request(method, url, headers=sent, content=body)
                    theirs = await own.request(method, url, headers=sent, content=body)
                    where = f"{method} {url} {sent} {body[:80]!r}"
                    assert mine.status_code == theirs.status_code, where
                    assert mine.text == theirs.text, where
                    assert mine.headers == theirs.headers, where
