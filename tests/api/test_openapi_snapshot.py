"""The served OpenAPI document is the committed contract, ``openapi/openapi.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from app.main import create_app
from app.settings import Settings

OPENAPI_FILE = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
REGENERATE = "run `python openapi/generate.py` and commit openapi/openapi.json"


def _committed() -> dict[str, Any]:
    assert OPENAPI_FILE.exists(), f"{OPENAPI_FILE} is missing: {REGENERATE}"
    document: dict[str, Any] = json.loads(OPENAPI_FILE.read_text(encoding="utf-8"))
    return document


def _app_document(tmp_path: Path) -> dict[str, Any]:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'snapshot.db'}"))
    # Through JSON, as the file is: tuples become lists, keys become strings.
    document: dict[str, Any] = json.loads(json.dumps(app.openapi()))
    return document


def test_openapi_matches_committed_file(tmp_path: Path) -> None:
    assert _app_document(tmp_path) == _committed(), f"the API changed: {REGENERATE}"


def test_committed_file_is_in_canonical_form() -> None:
    text = OPENAPI_FILE.read_text(encoding="utf-8")
    canonical = json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert text == canonical, f"openapi/openapi.json is not in canonical form: {REGENERATE}"


async def test_served_openapi_json_equals_committed_file(tmp_path: Path) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'served.db'}"))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/openapi.json")
    assert response.status_code == 200
    assert response.json() == _committed(), f"the served document differs: {REGENERATE}"


def test_no_fastapi_validation_error_schema(tmp_path: Path) -> None:
    document = _app_document(tmp_path)
    schemas = document["components"]["schemas"]
    assert "HTTPValidationError" not in schemas
    assert "Problem" in schemas
    for path_item in document["paths"].values():
        for operation in path_item.values():
            for status, response in operation.get("responses", {}).items():
                if status.startswith(("4", "5")):
                    assert list(response["content"]) == ["application/problem+json"], status


def test_operation_ids_are_unique_camel_case(tmp_path: Path) -> None:
    document = _app_document(tmp_path)
    ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))
    assert all(i[0].islower() and "_" not in i for i in ids), ids
    assert {"getHealth", "getReadiness"} <= set(ids)
