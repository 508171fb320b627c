"""What generated clients rely on: the contract declares what the service really does.

Security on every operation, every response header of real answers, typed outputs
(periods, seeds, events by `type`), required output fields and valid links.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.domain.draw import MAX_SEED
from tests.api.conftest import GameHandle, create_game

TRACKED = ("ETag", "Location", "Idempotent-Replayed", "Retry-After", "X-Request-ID")
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def _document(app: FastAPI) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(json.dumps(app.openapi()))
    return document


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield path, method, operation


def _resolve(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = document["components"][node["$ref"].split("/")[2]][node["$ref"].split("/")[3]]
    return node


def _declared_headers(document: dict[str, Any], operation_id: str, status: int) -> dict[str, Any]:
    for _, _, operation in _operations(document):
        if operation["operationId"] == operation_id:
            response = operation["responses"].get(str(status))
            assert response is not None, f"{operation_id} does not declare {status}"
            return {
                name: _resolve(document, header)
                for name, header in response.get("headers", {}).items()
            }
    raise AssertionError(f"no operation {operation_id}")


# --- static ------------------------------------------------------------------------------


def test_every_operation_declares_its_security(app: FastAPI) -> None:
    document = _document(app)
    for path, method, operation in _operations(document):
        # The recovery takes no token: the code in its body is the credential.
        if path.startswith("/v1/games/{game_id}") and not path.endswith("/recovery"):
            assert operation["security"] == [{"gameToken": []}], (method, path)
        else:
            assert operation["security"] == [], (method, path)
    assert document["servers"]


def test_every_output_field_is_required(app: FastAPI) -> None:
    """openapi-typescript makes a field optional unless the schema requires it."""
    document = _document(app)
    seen: set[str] = set()
    optional = []

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            name = ref.rsplit("/", 1)[-1]
            if name not in seen:
                seen.add(name)
                schema = document["components"]["schemas"][name]
                missing = set(schema.get("properties", {})) - set(schema.get("required", []))
                if missing:
                    optional.append((name, sorted(missing)))
                walk(schema)
            return
        for value in node.values():
            walk(value)

    for _, _, operation in _operations(document):
        for status, response in operation["responses"].items():
            if status.startswith("2"):
                walk(response.get("content", {}))
    assert optional == []


def _properties_named(node: Any, name: str) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict) and name in value:
                yield value[name]
            yield from _properties_named(value, name)
    elif isinstance(node, list):
        for item in node:
            yield from _properties_named(item, name)


def test_every_seed_fits_a_javascript_number(app: FastAPI) -> None:
    seeds = list(_properties_named(_document(app)["components"]["schemas"], "seed"))
    assert len(seeds) >= 4  # two requests, two answers, the game_created event
    for seed in seeds:
        choices = seed.get("anyOf", [seed])
        integers = [c for c in choices if c.get("type") == "integer"]
        assert integers, seed
        assert all(c["minimum"] == 0 and c["maximum"] == MAX_SEED == 2**53 - 1 for c in integers)


def test_every_period_in_an_answer_is_1_2_or_3(app: FastAPI) -> None:
    schemas = _document(app)["components"]["schemas"]
    answers = {
        n: s for n, s in schemas.items() if not n.endswith(("Calculation", "Create", "Update"))
    }
    periods = list(_properties_named(answers, "period"))
    assert periods
    for period in periods:
        assert period.get("enum") == [1, 2, 3], period


def test_output_strings_with_a_fixed_set_of_values_are_enums(app: FastAPI) -> None:
    schemas = _document(app)["components"]["schemas"]
    assert schemas["ScorePartRead"]["properties"]["part"]["enum"]
    assert schemas["GainSourceRead"]["properties"]["kind"]["enum"]
    assert schemas["PlayerRead"]["properties"]["leaders"]["items"]["enum"]
    mapping = schemas["EventRead"]["discriminator"]["mapping"]
    assert set(mapping) == {
        "game_created",
        "faith_set",
        "faith_changed",
        "leaders_set",
        "turn_order_set",
        "decision_set",
        "report_resolved",
        "round_advanced",
        "change_undone",
        "change_redone",
        "seat_token_changed",
    }
    for ref in mapping.values():
        event = schemas[ref.rsplit("/", 1)[-1]]
        assert "$ref" in event["properties"]["data"], "event data is typed, not a map"
    problem_type = schemas["Problem"]["properties"]["type"]
    assert "/problems/version-mismatch" in problem_type["enum"]
    for member in ("errors", "pending", "current_version"):
        assert member in schemas["Problem"]["properties"]


def test_every_link_names_a_real_operation_and_its_parameters(app: FastAPI) -> None:
    document = _document(app)
    by_id = {op["operationId"]: op for _, _, op in _operations(document)}
    checked = 0
    for _, _, operation in _operations(document):
        for response in operation["responses"].values():
            for link in response.get("links", {}).values():
                target = by_id.get(link["operationId"])
                assert target is not None, link
                names = {(p["in"], p["name"]) for p in target.get("parameters", [])}
                for parameter in link["parameters"]:
                    where, _, name = parameter.partition(".")
                    assert (where, name) in names, (link["operationId"], parameter)
                checked += 1
    assert checked > 10


# --- real answers -------------------------------------------------------------------------


class Recorder:
    """Calls the service and checks each answer's headers against the contract."""

    def __init__(self, client: httpx.AsyncClient, document: dict[str, Any]) -> None:
        self.client = client
        self.document = document
        self.checked: set[tuple[str, int]] = set()

    async def call(self, operation_id: str, method: str, url: str, **kw: Any) -> httpx.Response:
        response = await self.client.request(method, url, **kw)
        declared = _declared_headers(self.document, operation_id, response.status_code)
        sent = {name for name in TRACKED if name in response.headers}
        assert sent <= set(declared), (operation_id, response.status_code, sent - set(declared))
        for name, header in declared.items():
            if header.get("required"):
                assert name in response.headers, (operation_id, response.status_code, name)
        self.checked.add((operation_id, response.status_code))
        return response


async def test_real_answers_carry_exactly_the_declared_headers(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    calls = Recorder(client, _document(app))
    body = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 7}
    key = {"Idempotency-Key": str(uuid.uuid4())}
    created = await calls.call("createGame", "POST", "/v1/games", json=body, headers=key)
    assert created.status_code == 201
    replay = await calls.call("createGame", "POST", "/v1/games", json=body, headers=key)
    assert replay.headers["Idempotent-Replayed"] == "true"
    data = created.json()
    game = GameHandle(client, body, data["host_token"], data["player_tokens"], data["game"])
    host = game.host()
    read = await calls.call("getGame", "GET", game.url, headers=host)
    etag = read.headers["ETag"]
    await calls.call("getGame", "GET", game.url, headers={**host, "If-None-Match": etag})
    await calls.call("getGame", "GET", game.url)  # 401
    await calls.call(
        "setFaith", "PUT", f"{game.url}/faith", json={"faith": {"p1": 5, "p2": 9}}, headers=host
    )
    await calls.call(
        "setFaith",
        "PUT",
        f"{game.url}/faith",
        json={"faith": {"p1": 5}},
        headers={**host, "If-Match": '"1"'},
    )  # 412
    await calls.call(
        "setPlayerFaith", "PUT", f"{game.url}/players/p1/faith", json={"faith": 4}, headers=host
    )
    await calls.call(
        "setPlayerLeaders",
        "PUT",
        f"{game.url}/players/p1/leaders",
        json={"leaders": ["sisto_iv"]},
        headers=host,
    )
    await calls.call(
        "setTurnOrder",
        "PUT",
        f"{game.url}/turn-order",
        json={"turn_order": ["p2", "p1"]},
        headers=host,
    )
    await calls.call(
        "setReportDecision",
        "PUT",
        f"{game.url}/reports/1/decisions/p1",
        json={"choice": "support"},
        headers=host,
    )
    await calls.call("getReport", "GET", f"{game.url}/reports/1", headers=host)
    key = {"Idempotency-Key": str(uuid.uuid4())}
    resolve = ("resolveReport", "POST", f"{game.url}/reports/1/resolution")
    await calls.call(*resolve, json={"default_choice": "refuse"}, headers={**host, **key})
    again = await calls.call(*resolve, json={"default_choice": "refuse"}, headers={**host, **key})
    assert again.headers["Idempotent-Replayed"] == "true"
    await calls.call("listGameEvents", "GET", f"{game.url}/events", headers=host)
    await calls.call("getFaithTrack", "GET", "/v1/faith-track")
    await calls.call("drawTiles", "POST", "/v1/tile-draws", json={})
    await calls.call("getHealth", "GET", "/healthz")
    await calls.call("drawTiles", "POST", "/v1/tile-draws", json={"seed": 2**53})  # 422
    assert len(calls.checked) >= 15


async def test_event_data_is_served_as_logged(client: httpx.AsyncClient, app: FastAPI) -> None:
    """The typed event payloads neither drop nor rename anything the log holds."""
    game = await create_game(client)
    await game.set_faith(p1=5, p2=9, p3=1)
    response = await client.put(
        f"{game.url}/players/p2/leaders", json={"leaders": ["santa_rita"]}, headers=game.host()
    )
    assert response.status_code == 200
    response = await client.put(
        f"{game.url}/turn-order", json={"turn_order": ["p3", "p2", "p1"]}, headers=game.host()
    )
    assert response.status_code == 200
    assert (await game.decide(1, "p1", "support")).status_code == 200
    assert (await game.resolve(1, default_choice="refuse")).status_code == 201

    served = (await client.get(f"{game.url}/events", headers=game.host())).json()["events"]
    _, logged = app.state.game_service.list_events(game.id, 0, 100, game.host_token)
    assert [e["type"] for e in served] == [
        "game_created",
        "faith_set",
        "leaders_set",
        "turn_order_set",
        "decision_set",
        "report_resolved",
    ]
    assert [e["data"] for e in served] == [json.loads(json.dumps(e.data)) for e in logged]


async def test_the_table_operations_carry_exactly_their_declared_headers(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    """Undo, redo, Faith changes, rounds, seats and deletion; an answer with a token or a
    recovery code declares (and sends) Cache-Control: no-store."""
    document = _document(app)
    calls = Recorder(client, document)
    body = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 7, "track_rounds": True}
    created = await calls.call("createGame", "POST", "/v1/games", json=body)
    data = created.json()
    game = GameHandle(client, body, data["host_token"], data["player_tokens"], data["game"])
    host = game.host()
    key = {"Idempotency-Key": str(uuid.uuid4())}
    change = ("changePlayerFaith", "POST", f"{game.url}/players/p1/faith-changes")
    await calls.call(*change, json={"delta": 2}, headers={**host, **key})
    replay = await calls.call(*change, json={"delta": 2}, headers={**host, **key})
    assert replay.headers["Idempotent-Replayed"] == "true"
    await calls.call(*change, json={"delta": 2}, headers={**host, "If-Match": '"1"'})  # 412
    await calls.call("undoChange", "POST", f"{game.url}/undo", headers=host)
    await calls.call("redoChange", "POST", f"{game.url}/redo", headers=host)
    await calls.call("redoChange", "POST", f"{game.url}/redo", headers=host)  # 409
    await calls.call("advanceRound", "POST", f"{game.url}/round-advances", headers=host)
    issued = await calls.call("issueSeatToken", "POST", f"{game.url}/seats/p2/token", headers=host)
    await calls.call("revokeSeatToken", "DELETE", f"{game.url}/seats/p2/token", headers=host)
    code = {"recovery_code": data["recovery_code"]}
    recovered = await calls.call("recoverHostSeat", "POST", f"{game.url}/recovery", json=code)
    await calls.call("recoverHostSeat", "POST", f"{game.url}/recovery", json=code)  # 401
    new_host = {"Authorization": f"Bearer {recovered.json()['host_token']}"}
    await calls.call("deleteGame", "DELETE", game.url, headers=new_host)
    await calls.call("deleteGame", "DELETE", game.url, headers=new_host)  # 404
    for answer, operation in (
        (created, "createGame"),
        (issued, "issueSeatToken"),
        (recovered, "recoverHostSeat"),
    ):
        declared = _declared_headers(document, operation, answer.status_code)
        assert declared["Cache-Control"]["schema"]["enum"] == ["no-store"]
        assert answer.headers["Cache-Control"] == "no-store"
    assert len(calls.checked) == 13


async def test_the_new_event_data_is_served_as_logged(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    """The payloads of the events of undo, redo, Faith changes, rounds and seats neither
    drop nor rename anything the log holds."""
    game = await create_game(client, track_rounds=True)
    await game.set_faith(p1=5, p2=9)
    for method, path, body in (
        ("POST", "/players/p1/faith-changes", {"delta": 11}),
        ("POST", "/round-advances", None),
        ("POST", "/round-advances", None),
        ("PUT", "/reports/1/decisions/p2", {"choice": "refuse"}),
        ("POST", "/reports/1/resolution", {"default_choice": "support"}),
        ("POST", "/undo", None),
        ("POST", "/redo", None),
        ("POST", "/undo", None),
        ("POST", "/undo", None),
        ("POST", "/seats/p1/token", None),
        ("DELETE", "/seats/p2/token", None),
    ):
        response = await client.request(method, game.url + path, json=body, headers=game.host())
        assert response.status_code < 300, response.text
    served = (await client.get(f"{game.url}/events", headers=game.host())).json()["events"]
    _, logged = app.state.game_service.list_events(game.id, 0, 100, game.host_token)
    assert {e["type"] for e in served} >= {
        "faith_changed",
        "round_advanced",
        "change_undone",
        "change_redone",
        "seat_token_changed",
    }
    assert [e["data"] for e in served] == [json.loads(json.dumps(e.data)) for e in logged]


@pytest.mark.parametrize("path", ["/v1/tile-draws", "/v1/games"])
async def test_a_seed_above_2_53_is_a_422(client: httpx.AsyncClient, path: str) -> None:
    body: dict[str, Any] = {"seed": 2**53}
    if path == "/v1/games":
        body["players"] = [{"name": "Anna"}, {"name": "Bruno"}]
    response = await client.post(path, json=body)
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "seed"]
