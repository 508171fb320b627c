"""The OpenAPI document serves code generators and humans: every request has an example."""

from __future__ import annotations

from typing import Any

import httpx

from app.api.documentation.examples import load_examples, record_examples
from app.main import create_app
from app.settings import Settings


def _document() -> dict[str, Any]:
    document: dict[str, Any] = create_app(Settings(database_url="sqlite://")).openapi()
    return document


def test_every_request_body_schema_has_an_example() -> None:
    document = _document()
    schemas = document["components"]["schemas"]
    missing = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody")
            if body is None:
                continue
            schema = body["content"]["application/json"]["schema"]
            name = schema["$ref"].rsplit("/", 1)[-1]
            if not schemas[name].get("examples"):
                missing.append(f"{method.upper()} {path}: {name}")
    assert not missing, missing


def test_every_operation_has_a_tag_and_a_camel_case_id() -> None:
    for operations in _document()["paths"].values():
        for operation in operations.values():
            assert operation["tags"], operation["operationId"]
            assert operation["operationId"][0].islower()
            assert "_" not in operation["operationId"]


def test_every_success_answer_with_a_body_has_an_example() -> None:
    missing = []
    for path, operations in _document()["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                media = response.get("content", {}).get("application/json")
                if status.startswith("2") and media is not None and "example" not in media:
                    missing.append(f"{method.upper()} {path} {status}")
    assert not missing, missing


async def test_the_answers_examples_are_what_the_service_answers(
    client: httpx.AsyncClient,
) -> None:
    """app/api/examples.json holds real answers: recorded again, on this database, they
    are the same (run `python openapi/generate.py` after changing an answer)."""
    assert await record_examples(client) == load_examples()
