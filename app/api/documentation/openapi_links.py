"""The OpenAPI document's links: how a client chains a game's calls (create -> faith ->
decisions -> resolution -> reads); schemathesis' stateful mode walks them. A created game
is reached with its id (and the host token of the answer, as the bearer credentials);
later calls keep the game and send its ETag as If-Match.
"""

from __future__ import annotations

import copy
from typing import Any

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

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


def add_links(document: dict[str, Any]) -> None:
    """Each answer of ``LINKS`` gets its links."""
    operations = {
        operation["operationId"]: operation
        for path_item in document.get("paths", {}).values()
        for method, operation in path_item.items()
        if method in HTTP_METHODS and "operationId" in operation
    }
    for (operation_id, status), links in LINKS.items():
        operation = operations.get(operation_id)
        if operation is None or status not in operation.get("responses", {}):
            continue  # an app without the games routes (e.g. a test's) has no such answer
        operation["responses"][status]["links"] = copy.deepcopy(links)
