"""The HTTP platform: problem+json errors, request ids, metrics, body limit, ops and docs."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import psycopg
import pytest
from fastapi import APIRouter, FastAPI
from pydantic import BaseModel, ConfigDict
from sqlalchemy.exc import OperationalError
from starlette.types import Message

from app.api.problems import PROBLEM_TYPES, problem_responses, status_of
from app.api.problems.catalogue import ServiceUnavailable
from app.domain.errors import DecisionsPending, InvalidInput, NotEligible, ServiceError
from app.main import create_app
from app.persistence.db import Database
from app.services.errors import VersionMismatch
from app.settings import Settings
from tests.api.test_api_support import CONTRACT_SLUGS
from tests.settings import LIMITS_OFF

PROBLEM = "application/problem+json"
DOWN_URL = "postgresql://postgres@127.0.0.1:1/x"


class StrictBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str
    count: int


class Teapot(NotEligible):
    """A variant of a declared problem type: it answers with its parent's slug and title."""


def _test_router() -> APIRouter:
    """Routes that exist only in these tests, to drive each error path."""
    router = APIRouter(prefix="/test")

    @router.post("/echo", operation_id="testEcho")
    async def echo(body: StrictBody) -> dict[str, object]:
        return body.model_dump()

    @router.get("/items/{item_id}")
    async def get_item(item_id: int) -> dict[str, int]:
        return {"item_id": item_id}

    @router.get("/rule-error/{kind}")
    async def rule_error(kind: str) -> None:
        errors: dict[str, ServiceError] = {
            "teapot": Teapot("the teapot is short of faith"),
            "pending": DecisionsPending(["p1", "p2"]),
            "invalid": InvalidInput("unknown tile 'IV-1'", loc=("tile_id",)),
            "version": VersionMismatch("the game is at version 3", current_version=3),
            "unavailable": ServiceUnavailable("the database is down"),
        }
        raise errors[kind]

    @router.get("/db-down")
    async def db_down() -> None:
        raise OperationalError("SELECT 1", {}, psycopg.OperationalError("connection refused"))

    @router.get("/db-down-sync")
    def db_down_sync() -> None:
        Database(DOWN_URL).ping()

    @router.get("/bug")
    async def bug() -> None:
        raise RuntimeError("secret internals")

    return router


def _settings(tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {"database_url": f"sqlite:///{tmp_path / 'test.db'}", **LIMITS_OFF}
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


def _app(settings: Settings) -> FastAPI:
    app = create_app(settings)
    app.include_router(_test_router())
    return app


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return _app(_settings(tmp_path, max_body_bytes=1024, retry_after_seconds=7))


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


def assert_problem(response: httpx.Response, status: int, slug: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["type"] == f"/problems/{slug}"
    assert body["status"] == status
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    assert re.fullmatch(r"[0-9a-f]{32}|.+", response.headers["x-request-id"])
    return body  # type: ignore[no-any-return]


# --- problems ------------------------------------------------------------------------------


async def test_unknown_route_is_not_found_problem(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/no/such/route"), 404, "not-found")
    assert body["instance"] == "/no/such/route"


async def test_wrong_method_is_method_not_allowed_problem(client: httpx.AsyncClient) -> None:
    response = await client.delete("/healthz")
    assert_problem(response, 405, "method-not-allowed")
    assert "GET" in response.headers["allow"]


async def test_malformed_json_is_validation_error(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/test/echo", content=b'{"name": "a", ', headers={"content-type": "application/json"}
    )
    body = assert_problem(response, 422, "validation-error")
    errors = body["errors"]
    assert isinstance(errors, list) and errors
    assert errors[0]["loc"][0] == "body"
    assert set(errors[0]) == {"loc", "msg", "type"}
    assert errors[0]["type"] == "json_invalid"
    assert errors[0]["msg"].startswith("JSON decode error: ")


async def test_non_utf8_body_gives_json_safe_validation_error(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/test/echo", content=b"\xff\xfe\x00{", headers={"content-type": "application/json"}
    )
    body = assert_problem(response, 422, "validation-error")
    json.dumps(body)


async def test_unknown_field_names_the_field(client: httpx.AsyncClient) -> None:
    response = await client.post("/test/echo", json={"name": "a", "count": 1, "colour": "red"})
    body = assert_problem(response, 422, "validation-error")
    assert body["errors"] == [
        {
            "loc": ["body", "colour"],
            "msg": "Extra inputs are not permitted",
            "type": "extra_forbidden",
        }
    ]


async def test_wrong_type_names_the_field(client: httpx.AsyncClient) -> None:
    response = await client.post("/test/echo", json={"name": "a", "count": "1"})
    body = assert_problem(response, 422, "validation-error")
    errors = body["errors"]
    assert isinstance(errors, list)
    assert [e["loc"] for e in errors] == [["body", "count"]]
    assert "count" in str(body["detail"])


async def test_wrong_path_parameter_type(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/test/items/abc"), 422, "validation-error")
    assert body["errors"][0]["loc"] == ["path", "item_id"]  # type: ignore[index]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
async def test_non_json_content_type_is_a_problem_not_a_500(
    client: httpx.AsyncClient, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    response = await client.post(
        "/test/echo", content=b'{"name": "a", "count": 1}', headers=headers
    )
    assert response.status_code in (415, 422)
    assert response.headers["content-type"] == PROBLEM


async def test_valid_body_passes(client: httpx.AsyncClient) -> None:
    response = await client.post("/test/echo", json={"name": "a", "count": 2})
    assert response.status_code == 200
    assert response.json() == {"name": "a", "count": 2}


async def test_rule_error_subclass_maps_to_its_status_and_slug(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/test/rule-error/teapot"), 409, "not-eligible")
    assert body["title"] == NotEligible.title
    assert body["detail"] == "the teapot is short of faith"
    assert body["instance"] == "/test/rule-error/teapot"


async def test_decisions_pending_carries_pending(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/test/rule-error/pending"), 409, "decisions-pending")
    assert body["pending"] == ["p1", "p2"]


async def test_invalid_input_with_loc_lists_errors(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/test/rule-error/invalid"), 422, "validation-error")
    assert body["errors"] == [
        {"loc": ["body", "tile_id"], "msg": "unknown tile 'IV-1'", "type": "value_error"}
    ]


async def test_service_error_version_mismatch(client: httpx.AsyncClient) -> None:
    assert_problem(await client.get("/test/rule-error/version"), 412, "version-mismatch")


async def test_service_unavailable_rule_error_has_retry_after(client: httpx.AsyncClient) -> None:
    response = await client.get("/test/rule-error/unavailable")
    assert_problem(response, 503, "service-unavailable")
    assert response.headers["retry-after"] == "7"


@pytest.mark.parametrize("path", ["/test/db-down", "/test/db-down-sync"])
async def test_database_unavailable_error_is_503_with_retry_after(
    client: httpx.AsyncClient, path: str
) -> None:
    response = await client.get(path, headers={"x-request-id": "outage-1"})
    assert_problem(response, 503, "service-unavailable")
    assert response.headers["retry-after"] == "7"
    assert response.headers["x-request-id"] == "outage-1"


async def test_bug_is_500_without_details_and_logged(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="app.errors"):
        response = await client.get("/test/bug")
    body = assert_problem(response, 500, "internal-error")
    assert "secret" not in response.text
    assert "x-request-id" in response.headers
    assert body["instance"] == "/test/bug"
    assert any(r.exc_info and "secret internals" in str(r.exc_info[1]) for r in caplog.records)


def test_every_contract_slug_has_its_status() -> None:
    expected = CONTRACT_SLUGS
    assert {slug: status_of(PROBLEM_TYPES[slug]) for slug in expected} == expected


def test_problem_responses_groups_slugs_by_status() -> None:
    responses = problem_responses("not-found", "report-resolved", "not-eligible")
    assert sorted(responses) == [404, 409]
    conflict = responses[409]
    assert "report-resolved" in conflict["description"]
    assert "not-eligible" in conflict["description"]
    media = conflict["content"][PROBLEM]
    assert media["schema"] == {"$ref": "#/components/schemas/Problem"}
    assert set(media["examples"]) == {"report-resolved", "not-eligible"}
    with pytest.raises(ValueError):
        problem_responses("no-such-slug")


async def test_problem_type_pages_resolve(client: httpx.AsyncClient) -> None:
    for slug in ("not-found", "decisions-pending", "service-unavailable"):
        response = await client.get(f"/problems/{slug}")
        assert response.status_code == 200
        assert response.json()["status"] == status_of(PROBLEM_TYPES[slug])
    assert_problem(await client.get("/problems/nope"), 404, "not-found")


# --- body limit ----------------------------------------------------------------------------


async def test_content_length_over_limit_is_413_without_reading(
    client: httpx.AsyncClient,
) -> None:
    payload = json.dumps({"name": "x" * 2000, "count": 1}).encode()
    response = await client.post(
        "/test/echo",
        content=payload,
        headers={"content-type": "application/json", "x-request-id": "big-1"},
    )
    assert_problem(response, 413, "payload-too-large")
    assert response.headers["x-request-id"] == "big-1"


async def test_chunked_body_over_limit_is_413(client: httpx.AsyncClient) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"name": "'
        for _ in range(20):
            yield b"x" * 100
        yield b'", "count": 1}'

    response = await client.post(
        "/test/echo", content=chunks(), headers={"content-type": "application/json"}
    )
    assert "content-length" not in response.request.headers
    assert_problem(response, 413, "payload-too-large")
    assert "x-request-id" in response.headers


async def test_chunked_body_within_limit_passes(client: httpx.AsyncClient) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"name": "'
        yield b"x" * 100
        yield b'", "count": 1}'

    response = await client.post(
        "/test/echo", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 200
    assert response.json()["name"] == "x" * 100


# --- request id, access log, metrics -------------------------------------------------------


async def test_request_id_is_echoed(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz", headers={"x-request-id": "client-abc_123"})
    assert response.headers["x-request-id"] == "client-abc_123"


async def test_request_id_is_generated_when_missing(client: httpx.AsyncClient) -> None:
    first = await client.get("/healthz")
    second = await client.get("/healthz")
    assert re.fullmatch(r"[0-9a-f]{32}", first.headers["x-request-id"])
    assert first.headers["x-request-id"] != second.headers["x-request-id"]


@pytest.mark.parametrize("sent", ["x" * 129, "has space", "tab\there", ""])
async def test_insane_request_id_is_replaced(client: httpx.AsyncClient, sent: str) -> None:
    response = await client.get("/healthz", headers={"x-request-id": sent})
    assert re.fullmatch(r"[0-9a-f]{32}", response.headers["x-request-id"])


async def test_request_id_on_problem_responses(client: httpx.AsyncClient) -> None:
    response = await client.get("/nowhere", headers={"x-request-id": "r-404"})
    assert response.status_code == 404
    assert response.headers["x-request-id"] == "r-404"


async def test_one_json_access_line_per_request(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="app.access"):
        await client.get("/test/items/42", headers={"x-request-id": "log-1"})
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "app.access"]
    assert len(lines) == 1
    line = lines[0]
    assert line["method"] == "GET"
    assert line["route"] == "/test/items/{item_id}"
    assert line["status"] == 200
    assert line["request_id"] == "log-1"
    assert isinstance(line["duration_ms"], float)


async def test_a_file_answered_in_full_is_logged_200_not_499(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    """A file response listens for the client's disconnect and hears it after its last
    byte too (httpx's transport, like a browser, sends one): that is no 499."""
    with caplog.at_level(logging.INFO, logger="app.access"):
        response = await client.get("/table/")
    assert response.status_code == 200 and response.content
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "app.access"]
    assert [(line["path"], line["status"]) for line in lines] == [("/table/", 200)]


async def test_metrics_use_route_templates(client: httpx.AsyncClient) -> None:
    await client.get("/test/items/7")
    await client.get("/test/items/8")
    await client.get("/definitely/not/here")
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert re.search(
        r'http_requests_total\{method="GET",route="/test/items/\{item_id\}",status="200"\} \d',
        text,
    )
    assert 'route="unmatched",status="404"' in text
    assert "/test/items/7" not in text
    assert re.search(
        r'http_request_duration_seconds_bucket\{le="[^"]+",method="GET",'
        r'route="/test/items/\{item_id\}"\}',
        text,
    )


# --- ops -----------------------------------------------------------------------------------


async def test_healthz(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_readyz_ok(client: httpx.AsyncClient) -> None:
    response = await client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready"}


async def test_readyz_database_down_is_503(tmp_path: Path) -> None:
    app = create_app(_settings(tmp_path, database_url=DOWN_URL, retry_after_seconds=5))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/readyz")
        healthz = await client.get("/healthz")
    assert_problem(response, 503, "service-unavailable")
    assert response.headers["retry-after"] == "5"
    assert healthz.status_code == 200


async def test_factory_stores_settings_and_database(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    app = create_app(settings)
    assert app.state.settings is settings
    assert isinstance(app.state.db, Database)
    assert app.title == "Vatican Report rules service"
    assert {t["name"] for t in app.openapi_tags or []} == {
        "reference",
        "calculations",
        "games",
        "reports",
        "seats",
        "operations",
    }
    assert app.docs_url is None and app.redoc_url is None


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", "sqlite:///elsewhere.db")
    monkeypatch.setenv("MAX_BODY_BYTES", "10")
    monkeypatch.setenv("TILE_PACKS_DIR", str(tmp_path))
    settings = Settings()
    assert settings.database_url == "sqlite:///elsewhere.db"
    assert settings.max_body_bytes == 10
    assert settings.tile_packs_dir == tmp_path
    monkeypatch.delenv("DATABASE_URL")
    assert Settings().database_url == "sqlite:///var/vatican-report.db"


# --- docs ----------------------------------------------------------------------------------

_ASSET_URL = re.compile(r"""(?:src|href)=["']([^"']+)["']""")


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
async def test_docs_use_only_local_assets(client: httpx.AsyncClient, page: str) -> None:
    response = await client.get(page)
    assert response.status_code == 200
    html = response.text
    assert "http://" not in html and "https://" not in html and "//cdn" not in html
    urls = _ASSET_URL.findall(html)
    assert len(urls) >= 2
    for url in urls:
        assert url.startswith("/"), url
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert asset.content
    assert "/openapi.json" in html


async def test_content_length_over_limit_never_reads_the_body(app: FastAPI) -> None:
    sent: list[Message] = []

    async def receive() -> Message:
        raise AssertionError("the body was read")

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/test/echo",
        "raw_path": b"/test/echo",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"999999")],
        "client": ("127.0.0.1", 1234),
        "server": ("test", 80),
        "state": {},
    }
    await app(scope, receive, send)
    assert sent[0]["status"] == 413
    headers = dict(sent[0]["headers"])
    assert headers[b"content-type"] == b"application/problem+json"
    assert b"x-request-id" in headers
