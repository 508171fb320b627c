"""Schemathesis' stateful mode over the game flow, driven by the contract's OpenAPI links.

createGame links to the game's reads and changes with the game id and its ETag as
``If-Match`` (the test sends the game's host token as its bearer credentials); faith answers link
on to the period I decisions and resolution, Faith changes and undo, an undo's answer to a
redo, and report answers to the reads. Every
response gets the same checks as the stateless run. Deterministic and bounded.

Each game the flow creates is a valid one (the stateless run fuzzes createGame's body):
a generated body rarely passes every rule of a creation, and a flow that creates no
game exercises no link. Its Idempotency-Key is fresh for each call, so that the same
generated step always answers the same (a key reused from an earlier example would
replay or conflict, and hypothesis would see the flow as flaky).
"""

from __future__ import annotations

import uuid
import zlib
from collections import Counter
from typing import Any

import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.tile_packs import FIVE_SEATS

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

# The games the flow creates: two to five players, one with a leader that changes reports.
GAMES = [
    {"players": [{"name": "Anna", "leaders": ["sisto_iv"]}, {"name": "Bruno"}], "seed": 42},
    {"players": [{"name": "Anna"}, {"name": "Bruno"}, {"name": "Carla"}], "seed": 7},
    {
        "players": [{"name": n} for n in ("Anna", "Bruno", "Carla", "Dario", "Elena")],
        "expansions": FIVE_SEATS,  # the fifth seat comes with Houses of Renaissance
        "tiles": {"1": "I-2", "2": "II-7", "3": "III-4"},
    },
]

FLOW = [
    "createGame",
    "getGame",
    "listGameEvents",
    "setFaith",
    "setPlayerFaith",
    "changePlayerFaith",
    "undoChange",
    "redoChange",
    "setReportDecision",
    "resolveReport",
    "getReport",
    "calculateGameFinalScores",
]


def takes_a_key(operation: dict[str, Any]) -> bool:
    """The contract declares an Idempotency-Key header for the operation: the flow sends a
    fresh one, as a client does (the stateless run fuzzes the header itself)."""
    return any(p.get("name") == "Idempotency-Key" for p in operation.get("parameters", []))


def test_game_flow_follows_links(contract_app: FastAPI, request_tally: Counter[str]) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", contract_app).include(
        operation_id=FLOW
    )
    answers: Counter[tuple[str, int]] = Counter()
    # The bearer credentials of each created game: the contract declares them as the
    # security scheme, which links do not carry; a client keeps them, so does this test.
    host_tokens: dict[str, str] = {}

    class GameFlow(schema.as_state_machine()):  # type: ignore[misc]
        def call(self, case: Any, **kwargs: Any) -> Any:
            operation = case.operation.definition.raw["operationId"]
            if operation == "createGame":
                # Chosen by the generated body, so a replayed step creates the same game.
                case.body = GAMES[zlib.crc32(repr(case.body).encode()) % len(GAMES)]
            if takes_a_key(case.operation.definition.raw):
                case.headers = {**(case.headers or {}), "Idempotency-Key": str(uuid.uuid4())}
            game_id = (case.path_parameters or {}).get("game_id")
            if game_id in host_tokens:
                case.headers = {
                    **(case.headers or {}),
                    "Authorization": f"Bearer {host_tokens[game_id]}",
                }
            response = super().call(case, **kwargs)
            request_tally["stateful"] += 1
            answers[(operation, response.status_code)] += 1
            if operation == "createGame" and response.status_code == 201:
                created = response.json()
                host_tokens[created["game"]["id"]] = created["host_token"]
            return response

        def validate_response(
            self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
        ) -> None:
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs or None)

    GameFlow.run(
        settings=settings(
            # The flow is derandomized: a change to how the service answers is another flow.
            # With a fresh key on every keyed step, 100 reach every step on both databases
            # (60 do not): 160 leave room for the next change.
            max_examples=160,
            stateful_step_count=10,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
    # The links took generated games through the flow: each of these steps answered a
    # success. An undo's success needs a change just before it on the same game, which the
    # exploration reaches only now and then (its path differs from process to process):
    # test_link_walk.py follows the undo and redo links by hand instead.
    successes = {operation for (operation, status), _ in answers.items() if 200 <= status < 300}
    expected = {"createGame", "getGame", "setPlayerFaith", "getReport", "changePlayerFaith"}
    missing = expected - successes
    assert not missing, f"no success for {sorted(missing)}: {sorted(answers.items())}"
