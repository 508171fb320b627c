"""Examples of every success answer, recorded from real calls, for the OpenAPI document.

``record_examples`` plays one game through the service (the request bodies are the
request models' own examples) and keeps each operation's answer; ``openapi/generate.py``
writes them to ``app/api/examples.json``, and ``--check`` fails when a change
to the service changes an answer but the file was not rewritten. Ids, tokens and times
differ on every run, so they are replaced by fixed stand-ins before they are kept.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from app.api.schemas.calculations import (
    ActionValueCalculation,
    FinalScoresCalculation,
    GainsCalculation,
    GameFinalScoresCalculation,
    PlacementOrderCalculation,
    PlayerGainsCalculation,
    VaticanReportCalculation,
)
from app.api.schemas.games import (
    FaithBatchUpdate,
    FaithChangeCreate,
    FaithUpdate,
    GameCreate,
    LeadersUpdate,
    TurnOrderUpdate,
)
from app.api.schemas.reference import TileDrawCreate

EXAMPLES_FILE = Path(__file__).resolve().parent.parent / "examples.json"

#: Stand-ins for what differs from run to run.
GAME_ID = "0f4e1c2a9b8d4e6fa1b2c3d4e5f60718"
ROUNDS_GAME_ID = "7a3c9e1b5d2f4a6c8e0b1d3f5a7c9e2b"
TOKEN = "tok_{}_example_shown_once_keep_it_secret"
CODE = "SHOW-NONC-EKEE-PITA-PART-FROM-HOST-TOK{}"
AT = "2026-03-01T20:15:00Z"
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")

Examples = dict[str, dict[str, Any]]


class Response(Protocol):
    status_code: int
    text: str


class Client(Protocol):
    """What ``record_examples`` needs of a client: an ``httpx.AsyncClient`` has it."""

    async def request(
        self, method: str, url: str, *, json: Any = ..., headers: Any = ...
    ) -> Response: ...


def _example(model: type[BaseModel]) -> Any:
    """The first example a request model documents."""
    extra = model.model_config.get("json_schema_extra")
    documented = extra.get("examples") if isinstance(extra, dict) else None
    if not isinstance(documented, list) or not documented:
        raise TypeError(f"{model.__name__} documents no example")
    return documented[0]


def _example_numbered(model: type[BaseModel], field: str) -> Any:
    """The first example of a request model that sets ``field``."""
    extra = model.model_config.get("json_schema_extra")
    documented = extra.get("examples") if isinstance(extra, dict) else None
    for example in documented if isinstance(documented, list) else []:
        if isinstance(example, dict) and field in example:
            return example
    raise TypeError(f"{model.__name__} documents no example with {field}")


class _Recorder:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.examples: Examples = {}
        self.stand_ins: dict[str, str] = {}

    async def call(
        self,
        operation_id: str,
        method: str,
        url: str,
        body: Any = None,
        token: str | None = None,
        *,
        record: bool = True,
    ) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = await self.client.request(method, url, json=body, headers=headers)
        if not 200 <= response.status_code < 300:
            raise RuntimeError(f"{operation_id}: {response.status_code} {response.text}")
        if record:
            self.examples.setdefault(operation_id, {})[str(response.status_code)] = response.text
        return json.loads(response.text)

    def finish(self) -> Examples:
        result: Examples = {}
        for operation_id, answers in sorted(self.examples.items()):
            for status, text in answers.items():
                for real, stand_in in self.stand_ins.items():
                    text = text.replace(real, stand_in)
                text = _TIMESTAMP.sub(AT, text)
                result.setdefault(operation_id, {})[status] = json.loads(text)
        return result


async def record_examples(client: Client) -> Examples:
    """Each operation's success answer, by operation id and status, from one game."""
    calls = _Recorder(client)
    for operation_id, url in (
        ("getHealth", "/healthz"),
        ("getReadiness", "/readyz"),
        ("getFaithTrack", "/v1/faith-track"),
        ("listExcommunicationTiles", "/v1/excommunication-tiles?period=1&expansion=base"),
        ("getExcommunicationTile", "/v1/excommunication-tiles/I-2"),
    ):
        await calls.call(operation_id, "GET", url)
    await calls.call("drawTiles", "POST", "/v1/tile-draws", _example(TileDrawCreate))
    for operation_id, path, model in (
        ("calculateVaticanReport", "vatican-report", VaticanReportCalculation),
        ("calculateGains", "gains", GainsCalculation),
        ("calculateActionValue", "action-value", ActionValueCalculation),
        ("calculatePlacementOrder", "placement-order", PlacementOrderCalculation),
        ("calculateFinalScores", "final-scores", FinalScoresCalculation),
    ):
        await calls.call(operation_id, "POST", f"/v1/calculations/{path}", _example(model))

    created = await calls.call("createGame", "POST", "/v1/games", _example(GameCreate))
    game = f"/v1/games/{created['game']['id']}"
    host = created["host_token"]
    calls.stand_ins[created["game"]["id"]] = GAME_ID
    calls.stand_ins[host] = TOKEN.format("host")
    calls.stand_ins[created["recovery_code"]] = CODE.format("A")
    for player_id, token in created["player_tokens"].items():
        calls.stand_ins[token] = TOKEN.format(player_id)
    await calls.call("getGame", "GET", game, token=host)
    await calls.call("setFaith", "PUT", f"{game}/faith", _example(FaithBatchUpdate), host)
    await calls.call(
        "setPlayerFaith", "PUT", f"{game}/players/p1/faith", _example(FaithUpdate), host
    )
    await calls.call(
        "setPlayerLeaders", "PUT", f"{game}/players/p1/leaders", _example(LeadersUpdate), host
    )
    await calls.call("setTurnOrder", "PUT", f"{game}/turn-order", _example(TurnOrderUpdate), host)
    gains = _example(PlayerGainsCalculation)
    await calls.call(
        "calculatePlayerGains", "POST", f"{game}/players/p1/gain-adjustments", gains, host
    )
    await calls.call("getReport", "GET", f"{game}/reports/1", token=host)
    decision = {"choice": "support"}
    await calls.call("setReportDecision", "PUT", f"{game}/reports/1/decisions/p1", decision, host)
    resolution = {"default_choice": "refuse"}
    await calls.call("resolveReport", "POST", f"{game}/reports/1/resolution", resolution, host)
    scores = _example(GameFinalScoresCalculation)
    await calls.call("calculateGameFinalScores", "POST", f"{game}/final-scores", scores, host)
    delta = _example(FaithChangeCreate)
    await calls.call("changePlayerFaith", "POST", f"{game}/players/p2/faith-changes", delta, host)
    await calls.call("undoChange", "POST", f"{game}/undo", token=host)
    await calls.call("redoChange", "POST", f"{game}/redo", token=host)
    issued = await calls.call("issueSeatToken", "POST", f"{game}/seats/p2/token", token=host)
    calls.stand_ins[issued["token"]] = TOKEN.format("p2_new")
    code = {"recovery_code": created["recovery_code"]}
    recovered = await calls.call("recoverHostSeat", "POST", f"{game}/recovery", code)
    host = recovered["host_token"]
    calls.stand_ins[host] = TOKEN.format("host_recovered")
    calls.stand_ins[recovered["recovery_code"]] = CODE.format("B")
    await calls.call("listGameEvents", "GET", f"{game}/events", token=host)

    # A game that tracks its rounds (its creation is not the example: the first one is).
    rounds = _example_numbered(GameCreate, "track_rounds")
    other = await calls.call("createGame", "POST", "/v1/games", rounds, record=False)
    calls.stand_ins[other["game"]["id"]] = ROUNDS_GAME_ID
    url = f"/v1/games/{other['game']['id']}"
    await calls.call("advanceRound", "POST", f"{url}/round-advances", token=other["host_token"])
    return calls.finish()


def load_examples() -> Examples:
    if not EXAMPLES_FILE.exists():
        return {}
    examples: Examples = json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))
    return examples


def render_examples(examples: Examples) -> str:
    return json.dumps(examples, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def add_examples(document: dict[str, Any], examples: Examples) -> None:
    """Put each recorded answer on its operation's response as its JSON example."""
    for path_item in document.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            for status, body in examples.get(operation["operationId"], {}).items():
                response = operation.get("responses", {}).get(status)
                media = (response or {}).get("content", {}).get("application/json")
                if media is not None:
                    media["example"] = body
