"""An ExplicitRoute answers exactly as FastAPI's own request handler would: the same
endpoints behind each, the same requests, the same answers, errors included; and what it
cannot read is refused when the app is built. (``test_explicit_routes_of_the_service.py``
does the same for every route of the service.)"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

import httpx
import pytest
from fastapi import APIRouter, Cookie, Depends, FastAPI, Header, Query, Request, Response
from fastapi.routing import APIRoute
from pydantic import Field

from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.headers import IfNoneMatch, Token
from app.api.problems import install_problem_handlers
from app.api.schemas.base import Resources, StrictModel
from app.domain.errors import InvalidInput
from tests.api.fastapis_own import FastAPIsOwnRoute


class Body(StrictModel):
    name: str = Field(min_length=1, max_length=5)
    counts: list[Resources] = Field(min_length=1, max_length=2)


async def calculate(body: Body, request: Request) -> Response:
    if body.name == "rule":
        raise InvalidInput("a rule says no", loc=("counts", 0))
    return Response(body.model_dump_json(), media_type="application/json")


async def request_path(request: Request) -> str:
    return request.url.path


async def limit(
    limit: Annotated[int, Header(alias="X-Limit", ge=1, le=9)] = 3,
) -> int:
    return limit


def _echo(**values: object) -> Response:
    text = repr(sorted((name, repr(value)) for name, value in values.items()))
    return Response(text, media_type="text/plain")


async def read(
    game_id: str,
    token: Token,
    cached: IfNoneMatch,
    path: Annotated[str, Depends(request_path)],
    most: Annotated[int, Depends(limit)],
    page: Annotated[int, Query(ge=1, le=5)] = 1,
) -> Response:
    return _echo(game_id=game_id, token=token, cached=cached, path=path, most=most, page=page)


def change(game_id: str, body: Body, token: Token, seat: int) -> Response:
    """Sync, as the service's writes: it runs in the threadpool behind both classes."""
    return _echo(game_id=game_id, name=body.name, token=token, seat=seat)


def _router(prefix: str, route_class: type[APIRoute]) -> APIRouter:
    router = APIRouter(prefix=prefix, route_class=route_class)
    router.post("/calc")(calculate)
    router.get("/games/{game_id}")(read)
    router.put("/games/{game_id}/seats/{seat}")(change)
    return router


def _app() -> FastAPI:
    """The same endpoints under /ours (ExplicitRoute, the app's own routes, as the
    service serves them) and /full (FastAPI's handler, included by FastAPI)."""
    app = FastAPI(routes=_router("/ours", ExplicitRoute).routes)
    install_problem_handlers(app)  # as the service's app: its 422s, 415s and 400s
    app.include_router(_router("/full", FastAPIsOwnRoute))
    return app


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


async def _same_answer(client: httpx.AsyncClient, method: str, path: str, **kwargs: object) -> None:
    full = await client.request(method, "/full" + path, **kwargs)  # type: ignore[arg-type]
    explicit = await client.request(method, "/ours" + path, **kwargs)  # type: ignore[arg-type]
    assert explicit.status_code == full.status_code, explicit.text
    assert explicit.headers == full.headers
    assert explicit.text == full.text.replace("/full/", "/ours/")


JSON = "application/json"
BODIES: list[tuple[str | None, bytes]] = [
    (JSON, b'{"name": "a", "counts": [{"coins": 1}]}'),
    ("application/json; charset=utf-8", b'{"name": "a", "counts": [{}]}'),
    ("application/merge-patch+json", b'{"name": "a", "counts": [{}]}'),
    (None, b'{"name": "a", "counts": [{}]}'),
    (None, b""),
    (JSON, b""),
    ("", b'{"name": "a"}'),
    ("text/plain", b'{"name": "a"}'),
    ("multipart/form-data; boundary=x", b""),
    (JSON, b"[1,"),
    (JSON, b"null"),
    (JSON, b"[]"),
    (JSON, b'"text"'),
    (JSON, b'{"name": "a", "name": "b", "counts": [{}]}'),
    (JSON, b'{"name": "a", "counts": [{"coins": 1, "coins": 2}]}'),
    (JSON, b"\xff\xfe{}"),
    (JSON, b'\xef\xbb\xbf{"name": "a", "counts": [{}]}'),
    (JSON, b'{"name": "", "counts": [], "colour": "red"}'),
    (JSON, b'{"name": "a", "counts": [{"coins": "1"}, {"wood": 1.5}, {}]}'),
    (JSON, b'{"name": "rule", "counts": [{}]}'),
    (JSON, b'{"counts": ' + b"[" * 25_000 + b"]" * 25_000 + b"}"),
]


@pytest.mark.parametrize(("content_type", "body"), BODIES)
async def test_a_body_is_read_and_validated_as_fastapi_would(
    client: httpx.AsyncClient, content_type: str | None, body: bytes
) -> None:
    headers = {} if content_type is None else {"content-type": content_type}
    await _same_answer(client, "POST", "/calc", content=body, headers=headers)
    await _same_answer(client, "PUT", "/games/g1/seats/2", content=body, headers=headers)


READS: list[tuple[str, list[tuple[str, str]]]] = [
    ("/games/g1", []),
    ("/games/g%C3%A9?page=5", [("Authorization", "Bearer abc"), ("If-None-Match", '"3", W/"4"')]),
    ("/games/g1?page=0&page=9", [("X-Limit", "12")]),  # two errors, in FastAPI's order
    ("/games/g1?page=x", [("X-Limit", "x"), ("Authorization", "Basic abc")]),
    ("/games/g1?page=2&page=3", [("X-Limit", "2"), ("X-Limit", "4")]),
    ("/games/g1", [("Authorization", "Bearer a"), ("Authorization", "Bearer b")]),  # 400
    ("/games/g1", [("If-None-Match", "*")]),
    ("/games/g1", [("If-None-Match", '"1"'), ("If-None-Match", '"2"')]),  # the first counts
    ("/games/%20", [("if-none-match", "")]),
]


@pytest.mark.parametrize(("path", "headers"), READS)
async def test_path_query_header_and_dependency_values_are_read_as_fastapi_would(
    client: httpx.AsyncClient, path: str, headers: list[tuple[str, str]]
) -> None:
    await _same_answer(client, "GET", path, headers=headers)


async def test_a_sync_endpoint_gets_its_path_values_and_errors_as_fastapi_would(
    client: httpx.AsyncClient,
) -> None:
    body = b'{"name": "a", "counts": [{}]}'
    for seat in ("2", "x", "-1"):
        headers = {"content-type": JSON, "authorization": "Bearer t"}
        await _same_answer(client, "PUT", f"/games/g1/seats/{seat}", content=body, headers=headers)


def test_a_route_with_a_body_limit_of_its_own_is_refused() -> None:
    bounded = APIRouter(route_class=ExplicitRoute)
    with pytest.raises(TypeError, match="the app bounds bodies"):
        bounded.post("/calc", max_body_size=10)(calculate)


async def nested(most: Annotated[int, Depends(limit)]) -> int:
    return most


async def with_nested(value: Annotated[int, Depends(nested)]) -> Response:
    return Response()


def sync_dependency() -> int:
    return 1


async def with_a_sync_dependency(value: Annotated[int, Depends(sync_dependency)]) -> Response:
    return Response()


async def with_a_cookie(session: Annotated[str | None, Cookie()] = None) -> Response:
    return Response()


@pytest.mark.parametrize(
    ("endpoint", "reason"),
    [(with_nested, "not nested"), (with_a_sync_dependency, "async"), (with_a_cookie, "cookie")],
)
def test_what_an_explicit_route_cannot_take_is_refused_when_the_app_is_built(
    endpoint: Callable[..., Any], reason: str
) -> None:
    router = APIRouter(route_class=ExplicitRoute)
    with pytest.raises(TypeError, match=reason):
        router.get("/x")(endpoint)


async def test_an_explicit_route_included_by_fastapi_is_refused() -> None:
    # FastAPI builds an included route's handler again, with the including router's
    # dependencies, when the app first routes a request: the explicit path would not
    # see them.
    router = APIRouter(route_class=ExplicitRoute)
    router.post("/calc")(calculate)
    app = FastAPI()
    app.include_router(router, prefix="/v1", dependencies=[Depends(nested)])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        with pytest.raises(TypeError, match=r"/calc .*not through include_router"):
            await c.post("/v1/calc", json={"name": "a", "counts": [{}]})


async def returns_data() -> dict[str, int]:
    return {"a": 1}


async def says_response_returns_data() -> Response:
    return {"a": 1}  # type: ignore[return-value]


def test_an_endpoint_not_annotated_to_return_a_response_is_refused_when_built() -> None:
    router = APIRouter(route_class=ExplicitRoute)
    with pytest.raises(TypeError, match="annotated to return a Response"):
        router.get("/data")(returns_data)


async def test_an_endpoint_that_returns_no_response_after_all_is_a_programming_error() -> None:
    router = APIRouter(route_class=ExplicitRoute)
    router.get("/data")(says_response_returns_data)
    app = FastAPI(routes=router.routes)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        with pytest.raises(TypeError, match="returns a Response"):
            await c.get("/data")
