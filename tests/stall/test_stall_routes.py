"""The outage tests send every stored route: the table of ``stored_routes.py`` names every
operation of the contract on stored games, so a new route is not left out unnoticed."""

from __future__ import annotations

import json
from pathlib import Path

from tests.stall.stored_routes import StoredGame, stored_calls

CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
METHODS = {"get", "put", "post", "patch", "delete"}


def test_the_outage_tests_send_every_operation_on_stored_games() -> None:
    paths = json.loads(CONTRACT.read_text())["paths"]
    stored = {
        operation["operationId"]
        for path, operations in paths.items()
        if path == "/v1/games" or path.startswith("/v1/games/")
        for method, operation in operations.items()
        if method in METHODS
    }
    placeholder = StoredGame("0" * 32, "token", "code", ["p1", "p2"])
    sent = {call.operation for call in stored_calls(placeholder)}
    assert stored - sent == set(), "stored routes the outage tests do not send"
    assert sent - stored == set(), "operations the contract does not have"
