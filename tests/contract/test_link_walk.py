"""The contract's links walked by hand, as a client follows them: a game created, a
player's faith set by the creation's link, that change undone by the faith answer's link,
and redone by the undo answer's link. Each answer conforms to the contract, and each link
carries what the next step needs (the game, the player, the ETag as If-Match).

The stateful run (``test_stateful.py``) explores the links at random; this walk makes
sure the undo and redo links work whatever that exploration reaches."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient

CONTRACT_PATH = "/openapi.json"


def _pointer(document: Any, pointer: str) -> Any:
    for part in pointer.lstrip("/").split("/"):
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document


def _value(expression: str, response: httpx.Response, path: dict[str, str]) -> Any:
    """An OpenAPI runtime expression of the kinds the contract's links use."""
    if expression.startswith("$response.body#"):
        return _pointer(response.json(), expression.split("#", 1)[1])
    if expression.startswith("$response.header."):
        return response.headers[expression.removeprefix("$response.header.")]
    if expression.startswith("$request.path."):
        return path[expression.removeprefix("$request.path.")]
    raise AssertionError(f"a link expression this walk does not read: {expression}")


class Walk:
    def __init__(self, client: TestClient, contract: dict[str, Any], token: str) -> None:
        self.client = client
        self.contract = contract
        self.schema = schemathesis.openapi.from_dict(contract)
        self.auth = {"Authorization": f"Bearer {token}"}

    def operation(self, operation_id: str) -> tuple[str, str, dict[str, Any]]:
        for path, methods in self.contract["paths"].items():
            for method, operation in methods.items():
                if operation.get("operationId") == operation_id:
                    return path, method, operation
        raise AssertionError(f"no operation {operation_id}")

    def follow(
        self,
        answer: httpx.Response,
        path_values: dict[str, str],
        from_id: str,
        link: str,
        body: dict[str, Any] | None = None,
    ) -> tuple[httpx.Response, dict[str, str]]:
        """Follow the link ``link`` of ``from_id``'s answer, checking the answer."""
        _, _, operation = self.operation(from_id)
        declared = operation["responses"][str(answer.status_code)]["links"][link]
        path, method, _ = self.operation(declared["operationId"])
        values = {
            name: _value(expression, answer, path_values)
            for name, expression in declared["parameters"].items()
        }
        path_params = {k.split(".", 1)[1]: v for k, v in values.items() if k.startswith("path.")}
        headers = {k.split(".", 1)[1]: v for k, v in values.items() if k.startswith("header.")}
        headers = {**self.auth, **headers, "Idempotency-Key": str(uuid.uuid4())}
        url = path.format(**path_params)
        following = self.client.request(method.upper(), url, json=body, headers=headers)
        self.check(declared["operationId"], following)
        return following, path_params

    def check(self, operation_id: str, answer: httpx.Response) -> None:
        assert answer.is_success, (operation_id, answer.status_code, answer.text)
        self.schema.find_operation_by_id(operation_id).validate_response(answer)


@pytest.mark.parametrize("players", [2, 4])
def test_the_links_walk_a_change_back_and_forth(contract_app: FastAPI, players: int) -> None:
    with TestClient(contract_app) as client:
        contract = client.get(CONTRACT_PATH).json()
        body = {"players": [{"name": f"P{i}"} for i in range(players)], "seed": 3}
        created = client.post(
            "/v1/games", json=body, headers={"Idempotency-Key": str(uuid.uuid4())}
        )
        walk = Walk(client, contract, created.json()["host_token"])
        walk.check("createGame", created)

        faith, path = walk.follow(created, {}, "createGame", "SetPlayerFaith", {"faith": 7})
        assert (faith.json()["player"]["faith"], faith.headers["ETag"]) == (7, '"2"')
        undone, path = walk.follow(faith, path, "setPlayerFaith", "UndoChange")
        assert undone.json()["game"]["players"][0]["faith"] == 0
        assert undone.headers["ETag"] == '"3"'
        redone, path = walk.follow(undone, path, "undoChange", "RedoChange")
        assert redone.json()["game"]["players"][0]["faith"] == 7
        assert redone.headers["ETag"] == '"4"'
