"""The OpenAPI document: FastAPI's, with problem+json errors in place of its 422 default.

The committed ``openapi/openapi.json`` is this document (``python openapi/generate.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from app.api.problems import (
    PROBLEM_MEDIA_TYPE,
    Problem,
    problem_responses,
)

_FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")
_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def camel_case_operation_id(route: APIRoute) -> str:
    """Fallback operation id for a route that declares none: ``get_game`` -> ``getGame``."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", route.name) if w]
    if not words:
        return "operation"
    return words[0][0].lower() + words[0][1:] + "".join(w[0].upper() + w[1:] for w in words[1:])


def _uses_fastapi_validation_schema(response: dict[str, Any]) -> bool:
    for media in response.get("content", {}).values():
        ref = media.get("schema", {}).get("$ref", "")
        if ref.rsplit("/", 1)[-1] in _FASTAPI_VALIDATION_SCHEMAS:
            return True
    return False


def _problem_components() -> dict[str, Any]:
    schema = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    components: dict[str, Any] = dict(schema.pop("$defs", {}))
    components["Problem"] = schema
    return components


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document for ``app`` with every error response as a Problem."""
    document = get_openapi(
        title=app.title,
        version=app.version,
        openapi_version=app.openapi_version,
        summary=app.summary,
        description=app.description,
        routes=app.routes,
        tags=app.openapi_tags,
        servers=app.servers,
        contact=app.contact,
        license_info=app.license_info,
    )
    validation_response = problem_responses("validation-error")[422]
    for path_item in document.get("paths", {}).values():
        for method in _HTTP_METHODS:
            operation = path_item.get(method)
            if operation is None:
                continue
            responses: dict[str, Any] = operation.get("responses", {})
            for status, response in list(responses.items()):
                if _uses_fastapi_validation_schema(response):
                    responses[status] = validation_response
                    continue
                content = response.get("content", {})
                # FastAPI adds an empty application/json entry next to the problem+json
                # one declared by problem_responses(): a problem is never plain JSON.
                if PROBLEM_MEDIA_TYPE in content and content.get("application/json") == {
                    "schema": {}
                }:
                    del content["application/json"]
    schemas: dict[str, Any] = document.setdefault("components", {}).setdefault("schemas", {})
    for name in _FASTAPI_VALIDATION_SCHEMAS:
        schemas.pop(name, None)
    schemas.update(_problem_components())
    return document


def install_openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """Make ``app.openapi()`` return :func:`build_openapi`'s document, built once."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return openapi


def custom_openapi(app: FastAPI) -> dict[str, Any]:
    """The (cached) OpenAPI document of ``app``, installing the builder if needed."""
    install_openapi(app)
    return app.openapi()
