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
from app.api.problems import (
    PROBLEM_MEDIA_TYPE,
    Problem,
    problem_responses,
    problem_type_uri,
)

_FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")
_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# OpenAPI links: how a client chains a game's calls (create -> faith -> decisions ->
# resolution -> reads); schemathesis' stateful mode walks them. A created game is
# reached with its id (and the host token of the answer, as the bearer credentials);
# later calls keep the game and send its ETag as If-Match.
_CREATED = {"path.game_id": "$response.body#/game/id"}
_SAME_GAME = {"path.game_id": "$request.path.game_id"}
_CURRENT_VERSION = {"header.If-Match": "$response.header.ETag"}


def _link(operation_id: str, description: str, **parameters: Any) -> dict[str, Any]:
    return {"operationId": operation_id, "description": description, "parameters": parameters}


def _links(base: dict[str, str], player: str) -> dict[str, dict[str, Any]]:
    """Links from an answer about a game (``base`` locates it) to the calls that follow."""
    return {
        "GetGame": _link("getGame", "Read the game.", **base),
        "ListGameEvents": _link("listGameEvents", "Read the game's changes.", **base),
        "GetReport": _link("getReport", "Read a report of the game.", **base),
        "SetFaith": _link("setFaith", "Set players' faith.", **base, **_CURRENT_VERSION),
        "SetPlayerFaith": _link(
            "setPlayerFaith",
            "Set a player's faith.",
            **base,
            **_CURRENT_VERSION,
            **{"path.player_id": player},
        ),
        "SetReportDecision": _link(
            "setReportDecision",
            "A player chooses in the period I report.",
            **base,
            **_CURRENT_VERSION,
            **{"path.player_id": player, "path.period": "1"},
        ),
        "ResolveReport": _link(
            "resolveReport",
            "Resolve the period I report.",
            **base,
            **_CURRENT_VERSION,
            **{"path.period": "1"},
        ),
        "CalculateGameFinalScores": _link(
            "calculateGameFinalScores", "Score the game so far.", **base
        ),
        "ChangePlayerFaith": _link(
            "changePlayerFaith",
            "Add Faith to a player.",
            **base,
            **_CURRENT_VERSION,
            **{"path.player_id": player},
        ),
        "UndoChange": _link("undoChange", "Undo the last change.", **base, **_CURRENT_VERSION),
    }


_REPORT_LINKS = {
    "GetReport": _link(
        "getReport",
        "Read this report again.",
        **_SAME_GAME,
        **{"path.period": "$response.body#/period"},
    ),
    "ResolveReport": _link(
        "resolveReport",
        "Resolve this report.",
        **_SAME_GAME,
        **_CURRENT_VERSION,
        **{"path.period": "$response.body#/period"},
    ),
    "GetGame": _link("getGame", "Read the game.", **_SAME_GAME),
    "ListGameEvents": _link("listGameEvents", "Read the game's changes.", **_SAME_GAME),
}

_UNDONE_LINKS = {
    **_links(_SAME_GAME, "$response.body#/game/players/0/id"),
    "RedoChange": _link("redoChange", "Redo what was undone.", **_SAME_GAME, **_CURRENT_VERSION),
}

LINKS: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    ("createGame", "201"): _links(_CREATED, "$response.body#/game/players/0/id"),
    ("setFaith", "200"): _links(_SAME_GAME, "$response.body#/players/0/id"),
    ("setPlayerFaith", "200"): _links(_SAME_GAME, "$response.body#/player/id"),
    ("changePlayerFaith", "200"): _links(_SAME_GAME, "$response.body#/player/id"),
    ("setReportDecision", "200"): _REPORT_LINKS,
    ("resolveReport", "201"): _REPORT_LINKS,
    ("undoChange", "200"): _UNDONE_LINKS,
    ("redoChange", "200"): _links(_SAME_GAME, "$response.body#/game/players/0/id"),
}


SERVERS = [{"url": "/", "description": "The service that serves this document."}]

# Response headers, declared once under components.headers and referenced by each answer
# that carries them (tests/api/test_openapi_headers.py checks real answers against this).
HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-ID": {
        "required": True,
        "description": "The request's id: the client's own when it sent a sane one, else a "
        "new one. Quote it when reporting a problem.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
    },
    "ETag": {
        "required": True,
        "description": 'The game\'s version, as a strong tag (`"3"`): send it back as '
        "`If-Match` to change the game, or as `If-None-Match` to poll.",
        "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
    },
    "Location": {
        "required": True,
        "description": "The created game's URL.",
        "schema": {"type": "string", "format": "uri-reference"},
    },
    "Idempotent-Replayed": {
        "description": "`true` when this answer is the replay of an earlier call with the "
        "same `Idempotency-Key`; absent on the first answer.",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "Retry-After": {
        "required": True,
        "description": "Seconds to wait before retrying.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "Cache-Control": {
        "required": True,
        "description": "`no-store` on every answer that carries a token or a recovery code: "
        "no cache, proxy or browser may keep it.",
        "schema": {"type": "string", "enum": ["no-store"]},
    },
}
# The answers of a deprecated operation (app/api/deprecation.py) carry these too; they are
# declared only in a document that has one, so that no component goes unused.
DEPRECATION_HEADERS: dict[str, dict[str, Any]] = {
    "Deprecation": {
        "required": True,
        "description": "RFC 9745: this operation is deprecated, since the date given as "
        "`@<seconds since the epoch>`. See docs/api.md, Versioning and deprecation.",
        "schema": {"type": "string", "pattern": "^@-?[0-9]+$"},
    },
    "Sunset": {
        "description": "RFC 8594: the HTTP-date after which the operation may be removed.",
        "schema": {"type": "string"},
    },
    "Link": {
        "description": 'What to use instead, with `rel="deprecation"` (and `"sunset"`).',
        "schema": {"type": "string"},
    },
}
_HEADER_REFS = {
    name: {"$ref": f"#/components/headers/{name}"} for name in [*HEADERS, *DEPRECATION_HEADERS]
}

# Which success answers carry which headers besides X-Request-ID (every answer has it).
_VERSIONED = ("ETag",)
_IDEMPOTENT = ("ETag", "Idempotent-Replayed")
_SECRET = (*_IDEMPOTENT, "Cache-Control")
SUCCESS_HEADERS: dict[str, tuple[str, ...]] = {
    "createGame": ("ETag", "Location", "Idempotent-Replayed", "Cache-Control"),
    "getGame": _VERSIONED,
    "setPlayerFaith": _VERSIONED,
    "setFaith": _VERSIONED,
    "setPlayerLeaders": _VERSIONED,
    "setTurnOrder": _VERSIONED,
    "listGameEvents": _VERSIONED,
    "getReport": _VERSIONED,
    "setReportDecision": _VERSIONED,
    "resolveReport": _IDEMPOTENT,
    "changePlayerFaith": _IDEMPOTENT,
    "advanceRound": _IDEMPOTENT,
    "undoChange": _IDEMPOTENT,
    "redoChange": _IDEMPOTENT,
    "issueSeatToken": _SECRET,
    "revokeSeatToken": _VERSIONED,
    "recoverHostSeat": _SECRET,
}


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
    _add_links(document)
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
        if method in _HTTP_METHODS
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
                headers[name] = copy.deepcopy(_HEADER_REFS[name])


def _add_links(document: dict[str, Any]) -> None:
    operations = {
        operation["operationId"]: operation
        for path_item in document.get("paths", {}).values()
        for method, operation in path_item.items()
        if method in _HTTP_METHODS and "operationId" in operation
    }
    for (operation_id, status), links in LINKS.items():
        operation = operations.get(operation_id)
        if operation is None or status not in operation.get("responses", {}):
            continue  # an app without the games routes (e.g. a test's) has no such answer
        operation["responses"][status]["links"] = copy.deepcopy(links)


def install_openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """Make ``app.openapi()`` return :func:`build_openapi`'s document, built once."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return openapi
