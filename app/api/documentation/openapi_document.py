"""The OpenAPI document: FastAPI's, with problem+json errors in place of its 422 default,
made plain for code generators run with their default settings.

The committed ``openapi/openapi.json`` is this document (``python openapi/generate.py``).
``tests/contract/test_generators.py`` generates clients from it with openapi-typescript,
@hey-api/openapi-ts and openapi-python-client and type-checks each.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from app.api.documentation.examples import add_examples, load_examples
from app.api.documentation.openapi_headers import (
    DEPRECATION_HEADERS,
    HEADER_REFS,
    HEADERS,
    SUCCESS_HEADERS,
)
from app.api.documentation.openapi_links import HTTP_METHODS, add_links
from app.api.problems import (
    PROBLEM_MEDIA_TYPE,
    Problem,
    problem_responses,
    problem_type_uri,
)

_FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")

SERVERS = [{"url": "/", "description": "The service that serves this document."}]


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
    # A member a problem does not carry is absent, never null: generators must type it
    # optional (a default would make openapi-typescript call it always there).
    for name, member in schema["properties"].items():
        if name in schema.get("required", ()):
            continue
        member.pop("default", None)
        choices = [c for c in member.pop("anyOf", []) if c != {"type": "null"}]
        if len(choices) == 1:
            member.update(choices[0])
    # JSON Schema's if/then says which members a problem always carries, by its `type`;
    # each set of members is a schema of its own, named after the slug, so that a client
    # can type `current_version` on a `version-mismatch` without keeping that list itself.
    schema["allOf"] = []
    for slug, members in PROBLEM_MEMBERS.items():
        name = problem_members_schema(slug)
        components[name] = {
            "type": "object",
            "description": f"What a `{slug}` problem carries besides any Problem's members.",
            "required": list(members),
            "properties": {m: copy.deepcopy(schema["properties"][m]) for m in members},
            "additionalProperties": True,
        }
        schema["allOf"].append(
            {
                "if": {
                    "required": ["type"],
                    "properties": {"type": {"const": problem_type_uri(slug)}},
                },
                "then": {"$ref": f"#/components/schemas/{name}"},
            }
        )
    components["Problem"] = schema
    return components


# The problems that always carry an extension member, and those members.
PROBLEM_MEMBERS: dict[str, tuple[str, ...]] = {
    "validation-error": ("errors",),
    "decisions-pending": ("pending",),
    "version-mismatch": ("current_version",),
}


def problem_members_schema(slug: str) -> str:
    """``version-mismatch`` -> ``VersionMismatchProblemMembers``."""
    return "".join(word.capitalize() for word in slug.split("-")) + "ProblemMembers"


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
        for method in HTTP_METHODS:
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
    add_links(document)
    add_examples(document, load_examples())
    _complete_operations(document)
    document["servers"] = copy.deepcopy(SERVERS)
    document["components"]["headers"] = copy.deepcopy(HEADERS)
    if any(operation.get("deprecated") for operation in _operations(document)):
        document["components"]["headers"].update(copy.deepcopy(DEPRECATION_HEADERS))
    schemas: dict[str, Any] = document.setdefault("components", {}).setdefault("schemas", {})
    for name in _FASTAPI_VALIDATION_SCHEMAS:
        schemas.pop(name, None)
    schemas.update(_problem_components())
    _plain_for_generators(document)
    return document


def _plain_for_generators(document: dict[str, Any]) -> None:
    """What generators run with their default settings stumble on, made plain for every
    schema (those added later too), without renaming anything a client names:

    - a request field with a default is optional, but openapi-typescript types every field
      that has a `default` as always there (so `{players, seed}` would not be a GameCreate):
      the default is stated in the field's description instead, and the service applies it;
    - openapi-python-client names a model after its schema's `title` and holds the decoded
      model in a variable of that name in snake case, which a field of the same name
      overwrites (`Outcome.outcome`): such a schema's title gets `Model` appended (its name
      under `components/schemas`, the one TypeScript clients use, stays);
    - a body that is not JSON (the event stream) is text to a generator, which reads it
      as a string, while OpenAPI before 3.2 (and schemathesis) reads an event stream's
      schema as one event, an object: such a schema admits both, `["object", "string"]`.
    """
    for name, schema in document["components"]["schemas"].items():
        _defaults_to_descriptions(schema)
        title = schema.get("title", name)
        if _snake(title) in schema.get("properties", {}):
            schema["title"] = f"{title}Model"
    for operation in _operations(document):
        for response in operation.get("responses", {}).values():
            for media_type, media in response.get("content", {}).items():
                if _is_json(media_type) or "schema" not in media:
                    continue
                if media["schema"].get("type") == "object":
                    media["schema"] = {**media["schema"], "type": ["object", "string"]}


def _defaults_to_descriptions(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _defaults_to_descriptions(item)
        return
    if not isinstance(node, dict):
        return
    required = set(node.get("required", ()))
    for field, prop in node.get("properties", {}).items():
        if isinstance(prop, dict) and "default" in prop and field not in required:
            default = json.dumps(prop.pop("default"), ensure_ascii=False)
            text = prop.get("description", "").rstrip()
            prop["description"] = f"{text} Default: `{default}`.".lstrip()
    for key, value in node.items():
        if key not in ("example", "examples"):  # data, not schemas
            _defaults_to_descriptions(value)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _is_json(media_type: str) -> bool:
    return media_type == "application/json" or media_type.endswith("+json")


def _operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        operation
        for path_item in document.get("paths", {}).values()
        for method, operation in path_item.items()
        if method in HTTP_METHODS
    ]


def _complete_operations(document: dict[str, Any]) -> None:
    """What FastAPI leaves out: public operations say they need no credentials, every
    operation has a description and may get the platform's 413, and every answer
    declares its headers."""
    payload_too_large = problem_responses("payload-too-large")[413]
    for operation in _operations(document):
        operation.setdefault("security", [])
        if not operation.get("description"):
            operation["description"] = operation.get("summary", "")
        responses: dict[str, Any] = operation.setdefault("responses", {})
        # The platform refuses any request whose declared body is too large, before routing.
        responses.setdefault("413", copy.deepcopy(payload_too_large))
        success = SUCCESS_HEADERS.get(operation.get("operationId", ""), ())
        for status, response in responses.items():
            names = ["X-Request-ID"]
            if status.startswith("2") or status == "304":
                names += [n for n in success if status != "304" or n == "ETag"]
            if status in ("429", "503"):
                names.append("Retry-After")
            if operation.get("deprecated"):
                names += list(DEPRECATION_HEADERS)
            headers = response.setdefault("headers", {})
            for name in names:
                headers[name] = copy.deepcopy(HEADER_REFS[name])


def install_openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """Make ``app.openapi()`` return :func:`build_openapi`'s document, built once."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return openapi
