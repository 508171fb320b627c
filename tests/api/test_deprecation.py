"""A deprecated route says so on every answer (RFC 9745 ``Deprecation``, RFC 8594
``Sunset``, a ``Link`` to what replaces it) and in the contract; the others do not. No
route of the service is deprecated yet, so a test app of explicit routes stands in."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx
import pytest
from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from app.api.documentation.openapi_document import build_openapi
from app.api.platform.deprecation import DEPRECATED, Deprecated, install_deprecations
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.front import ServiceApp
from app.main import create_app
from app.settings import Settings

SINCE = datetime(2026, 12, 1, tzinfo=UTC)
SUNSET = datetime(2027, 6, 30, 23, 59, 59, tzinfo=UTC)


def _app(deprecated: list[Deprecated]) -> ServiceApp:
    router = APIRouter(prefix="/v1/things", route_class=ExplicitRoute)

    @router.get("/{thing_id}", operation_id="getThing")
    async def get_thing(thing_id: str) -> Response:
        return JSONResponse({"id": thing_id})

    @router.put("/{thing_id}", operation_id="setThing")
    async def set_thing(thing_id: str) -> Response:
        return JSONResponse({"id": thing_id})

    app = ServiceApp(title="test", version="0", routes=router.routes)
    install_deprecations(app, deprecated)
    return app


async def test_a_deprecated_route_sends_deprecation_sunset_and_link() -> None:
    entry = Deprecated("GET", "/v1/things/{thing_id}", SINCE, SUNSET, "/v2/things/{thing_id}")
    app = _app([entry])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        old = await client.get("/v1/things/a")
        other = await client.put("/v1/things/a")
    assert old.status_code == 200 and old.json() == {"id": "a"}
    assert old.headers["Deprecation"] == f"@{int(SINCE.timestamp())}"
    assert parsedate_to_datetime(old.headers["Sunset"]) == SUNSET
    assert old.headers["Sunset"].endswith(" GMT")
    assert old.headers["Link"] == '</v2/things/{thing_id}>; rel="deprecation sunset"'
    # The same path with another method is another operation, not deprecated.
    assert other.status_code == 200
    assert not {"Deprecation", "Sunset", "Link"} & set(other.headers)


def test_the_contract_marks_it_and_declares_its_headers() -> None:
    document = build_openapi(_app([Deprecated("GET", "/v1/things/{thing_id}", SINCE)]))
    get = document["paths"]["/v1/things/{thing_id}"]["get"]
    put = document["paths"]["/v1/things/{thing_id}"]["put"]
    assert get["deprecated"] is True and "deprecated" not in put
    assert {"Deprecation", "Sunset", "Link"} <= set(get["responses"]["200"]["headers"])
    assert "Deprecation" not in put["responses"]["200"]["headers"]
    assert "Deprecation" in document["components"]["headers"]


def test_deprecating_a_route_that_does_not_exist_stops_the_build() -> None:
    with pytest.raises(LookupError, match="no route DELETE /v1/things"):
        _app([Deprecated("DELETE", "/v1/things/{thing_id}", SINCE)])


def test_the_service_deprecates_nothing_yet() -> None:
    assert DEPRECATED == ()
    document = create_app(Settings(database_url="sqlite://")).openapi()
    assert "Deprecation" not in document["components"]["headers"]
    assert not any(
        operation.get("deprecated")
        for item in document["paths"].values()
        for operation in item.values()
    )
