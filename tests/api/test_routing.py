"""CalculationRoute answers exactly as StrictJSONRoute (FastAPI's own request handler)
would: the same endpoint behind each, the same requests, the same answers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import APIRouter, FastAPI, Request, Response
from pydantic import Field

from app.api.problems import install_problem_handlers
from app.api.routing import CalculationRoute, StrictJSONRoute
from app.api.schemas.base import Resources, StrictModel
from app.domain.errors import InvalidInput


class Body(StrictModel):
    name: str = Field(min_length=1, max_length=5)
    counts: list[Resources] = Field(min_length=1, max_length=2)


async def endpoint(body: Body, request: Request) -> Response:
    if body.name == "rule":
        raise InvalidInput("a rule says no", loc=("counts", 0))
    return Response(body.model_dump_json(), media_type="application/json")


def _app() -> FastAPI:
    app = FastAPI()
    install_problem_handlers(app)  # as the service's app: its 422s, 415s and 400s
    for prefix, route_class in (("/lean", CalculationRoute), ("/full", StrictJSONRoute)):
        router = APIRouter(prefix=prefix, route_class=route_class)
        router.post("/calc")(endpoint)
        app.include_router(router)
    return app


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


JSON = "application/json"
REQUESTS: list[tuple[str | None, bytes]] = [
    (JSON, b'{"name": "a", "counts": [{"coins": 1}]}'),
    ("application/json; charset=utf-8", b'{"name": "a", "counts": [{}]}'),
    ("application/merge-patch+json", b'{"name": "a", "counts": [{}]}'),
    (None, b'{"name": "a", "counts": [{}]}'),
    (None, b""),
    (JSON, b""),
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


@pytest.mark.parametrize(("content_type", "body"), REQUESTS)
async def test_a_calculation_route_answers_as_fastapi_would(
    client: httpx.AsyncClient, content_type: str | None, body: bytes
) -> None:
    headers = {} if content_type is None else {"content-type": content_type}
    lean = await client.post("/lean/calc", content=body, headers=headers)
    full = await client.post("/full/calc", content=body, headers=headers)
    assert lean.status_code == full.status_code, lean.text
    assert lean.headers == full.headers
    assert lean.text == full.text.replace("/full/", "/lean/")


def test_a_calculation_route_takes_nothing_but_a_body_and_the_request() -> None:
    async def with_a_query(body: Body, request: Request, page: int = 1) -> Response:
        return Response()

    router = APIRouter(route_class=CalculationRoute)
    with pytest.raises(TypeError, match="async"):
        router.post("/calc")(with_a_query)
