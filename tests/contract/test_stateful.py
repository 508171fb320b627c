"""Schemathesis' stateful mode over the game flow, driven by the contract's OpenAPI links.

createGame links to the game's reads and changes with the game id and the host token
(``Authorization: Bearer {host_token}``) and its ETag as ``If-Match``; faith answers link
on to the period I decisions and resolution, and report answers to the reads. Every
response gets the same checks as the stateless run. Deterministic and bounded.
"""

from __future__ import annotations

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

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

FLOW = [
    "createGame",
    "getGame",
    "listGameEvents",
    "setFaith",
    "setPlayerFaith",
    "setReportDecision",
    "resolveReport",
    "getReport",
    "calculateGameFinalScores",
]


def test_game_flow_follows_links(contract_app: FastAPI, request_tally: Counter[str]) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", contract_app).include(
        operation_id=FLOW
    )
    answers: Counter[tuple[str, int]] = Counter()

    class GameFlow(schema.as_state_machine()):  # type: ignore[misc]
        def call(self, case: Any, **kwargs: Any) -> Any:
            response = super().call(case, **kwargs)
            request_tally["stateful"] += 1
            answers[(case.operation.definition.raw["operationId"], response.status_code)] += 1
            return response

        def validate_response(
            self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
        ) -> None:
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs or None)

    GameFlow.run(
        settings=settings(
            max_examples=80,
            stateful_step_count=10,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
    # The links took generated games through the flow: every step answered a success.
    successes = {operation for (operation, status), _ in answers.items() if 200 <= status < 300}
    assert successes >= {"createGame", "getGame", "setPlayerFaith", "getReport"}, answers
