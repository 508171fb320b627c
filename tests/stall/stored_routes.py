"""Every stored route (one that reads or writes the database), as one valid request each:
what the outage tests and ``bench/stall.py`` send while PostgreSQL is frozen.

Each request is valid for the game it is made for, so that nothing but the database can
answer it: a 422 or a 409 would come from the rules, after the game was read. A test
(``test_stall_routes.py``) checks that this table names every operation of the contract
whose path is under ``/v1/games``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.integration.support import bearer


@dataclass(frozen=True)
class StoredGame:
    """A game made for the outage tests: its id, the host's token and recovery code."""

    id: str
    host: str
    recovery_code: str
    player_ids: list[str]

    @property
    def url(self) -> str:
        return f"/v1/games/{self.id}"

    @property
    def auth(self) -> dict[str, str]:
        return bearer(self.host)


GAME_BODY = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 11, "track_rounds": True}


async def new_game(http: httpx.AsyncClient) -> StoredGame:
    response = await http.post("/v1/games", json=GAME_BODY)
    assert response.status_code == 201, response.text
    data = response.json()
    return StoredGame(
        data["game"]["id"], data["host_token"], data["recovery_code"], sorted(data["player_tokens"])
    )


@dataclass(frozen=True)
class Call:
    """One request: ``what`` names it in reports (its operation id, and a variant)."""

    what: str
    operation: str
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    json: Any = None
    params: dict[str, Any] | None = None

    def send_args(self) -> dict[str, Any]:
        args: dict[str, Any] = {"headers": self.headers}
        if self.json is not None:
            args["json"] = self.json
        if self.params is not None:
            args["params"] = self.params
        return args


def _key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def stored_calls(game: StoredGame) -> list[Call]:
    """One call of every stored route on ``game`` (and a creation); an Idempotency-Key is
    fresh for each call made."""
    g, auth, p1 = game.url, game.auth, game.player_ids[0]
    p2 = game.player_ids[1]
    keyed: Callable[[], dict[str, str]] = lambda: {**auth, **_key()}  # noqa: E731
    return [
        Call("create", "createGame", "POST", "/v1/games", _key(), GAME_BODY),
        Call("read", "getGame", "GET", g, auth),
        Call("read 304", "getGame", "GET", g, {**auth, "If-None-Match": '"1"'}),
        Call("events", "listGameEvents", "GET", f"{g}/events", auth),
        Call(
            "long-poll",
            "listGameEvents",
            "GET",
            f"{g}/events",
            auth,
            params={"after": 1000, "wait": 5},
        ),
        Call("stream", "streamGameEvents", "GET", f"{g}/events/stream", auth),
        Call("report", "getReport", "GET", f"{g}/reports/1", auth),
        Call("faith", "setFaith", "PUT", f"{g}/faith", auth, {"faith": {p1: 3}}),
        Call(
            "player faith", "setPlayerFaith", "PUT", f"{g}/players/{p1}/faith", auth, {"faith": 4}
        ),
        Call(
            "faith change",
            "changePlayerFaith",
            "POST",
            f"{g}/players/{p1}/faith-changes",
            keyed(),
            {"delta": 1},
        ),
        Call(
            "leaders",
            "setPlayerLeaders",
            "PUT",
            f"{g}/players/{p1}/leaders",
            auth,
            {"leaders": ["sisto_iv"]},
        ),
        Call(
            "turn order", "setTurnOrder", "PUT", f"{g}/turn-order", auth, {"turn_order": [p2, p1]}
        ),
        Call(
            "decision",
            "setReportDecision",
            "PUT",
            f"{g}/reports/1/decisions/{p1}",
            auth,
            {"choice": "support"},
        ),
        Call("resolution", "resolveReport", "POST", f"{g}/reports/1/resolution", keyed(), {}),
        Call("round advance", "advanceRound", "POST", f"{g}/round-advances", keyed()),
        Call("undo", "undoChange", "POST", f"{g}/undo", keyed()),
        Call("redo", "redoChange", "POST", f"{g}/redo", keyed()),
        Call("seat token", "issueSeatToken", "POST", f"{g}/seats/{p1}/token", keyed()),
        Call("seat revoke", "revokeSeatToken", "DELETE", f"{g}/seats/{p2}/token", auth),
        Call(
            "recovery",
            "recoverHostSeat",
            "POST",
            f"{g}/recovery",
            _key(),
            {"recovery_code": game.recovery_code},
        ),
        Call(
            "gains",
            "calculatePlayerGains",
            "POST",
            f"{g}/players/{p1}/gain-adjustments",
            auth,
            {"gains": [{"resources": {"coins": 5}, "source": {"kind": "action_space"}}]},
        ),
        Call(
            "final scores",
            "calculateGameFinalScores",
            "POST",
            f"{g}/final-scores",
            auth,
            {"players": [{"id": p1, "victory_points": 3}, {"id": p2, "victory_points": 5}]},
        ),
        Call("delete", "deleteGame", "DELETE", g, auth),
    ]
