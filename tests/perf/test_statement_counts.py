"""SQL statements per operation, pinned: a query added to a hot path fails here, not in
production. Not timed (tests never assert on time); runs on SQLite and PostgreSQL.

Counts include the ``BEGIN`` that opens a transaction (``BEGIN``/``BEGIN IMMEDIATE`` on
SQLite, sent by the unit of work; on PostgreSQL psycopg sends it before a transaction's
first statement, a round trip all the same), not ``COMMIT``. When a count changes on
purpose, update ``PINNED`` in the same commit and say why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.api.conftest import GameHandle, create_game
from tests.statements import count_statements
from tests.support.tile_packs import expansions_for, hor_app


@pytest.fixture
def app(database_url: str, tmp_path: Path) -> FastAPI:
    """The app with a Houses of Renaissance pack to enable: the games of five need it."""
    return hor_app(database_url, tmp_path)


# A game is one row: a read is one SELECT of it (the read model for getGame, its version
# and token hashes for a 304, its state for getReport), a change one locked SELECT, one
# UPDATE of the row and the INSERT of its event, whatever the number of players.
PINNED: dict[str, dict[str, int]] = {
    "sqlite": {
        "createGame": 3,  # BEGIN IMMEDIATE; INSERT games, events
        # On the loop's own connection, in autocommit (app/persistence/sqlite_reads.py)
        "getGame": 1,  # SELECT the document
        "getGameNotModified": 1,  # SELECT the version
        "getReport": 1,  # SELECT the state
        # The first change a token makes in a process: its admission reads the game's token
        # hashes once (a SELECT on the loop, as a 304's; app/api/platform/admission.py), then BEGIN
        # IMMEDIATE; SELECT (locked); UPDATE games; INSERT events. Later changes by that
        # token: the last four.
        "setPlayerFaith": 5,
        "setFaith": 4,
        "setReportDecision": 4,
        "resolveReport": 4,
        # The token on the loop first (SELECT the version), then BEGIN; SELECT the version;
        # SELECT events on a thread.
        "listGameEvents": 4,
        "calculatePlayerGains": 1,  # SELECT the state, as getReport
        "calculateGameFinalScores": 1,
        "advanceRound": 4,  # BEGIN IMMEDIATE; SELECT; UPDATE games; INSERT events
        "changePlayerFaith": 4,
        # BEGIN IMMEDIATE; SELECT; SELECT the events in effect (one, whatever their number);
        # UPDATE games; INSERT events
        "undoChange": 5,
        "redoChange": 5,
        # BEGIN IMMEDIATE; SELECT; UPDATE games; INSERT events; UPDATE the token hashes
        "issueSeatToken": 5,
        "revokeSeatToken": 5,
        # Its admission's read of the game's version and hashes, the recovery code's
        # included (on the loop, as a token's check), then the five of a seat's change.
        "recoverHostSeat": 6,
        # By the recovered host token, new to the admission: SELECT (on the loop); then
        # BEGIN IMMEDIATE; SELECT; DELETE events; UPDATE its keys (gone); DELETE games
        "deleteGame": 6,
    },
}
# PostgreSQL: a read of a game is one SELECT on the async reads' autocommit connections
# (no BEGIN), as on SQLite; the other reads are as on SQLite. A change that may rerun
# (reruns_lost_races: every change sent without an Idempotency-Key but a history's or a
# seat's) is two statements each committing on its own, no BEGIN and no COMMIT: the
# unlocked SELECT, and ONE statement storing the row, the event and the pg_notify if the
# game is still at the version read (data-modifying CTEs; GameRepository.store_change),
# both on the event loop (pg_loop_changes.py).
PINNED["postgresql"] = {
    **PINNED["sqlite"],
    "setPlayerFaith": 3,  # its admission's read of the token hashes, then the two
    "setFaith": 2,
    "setReportDecision": 2,
    "resolveReport": 2,
    "advanceRound": 2,
    "changePlayerFaith": 2,
    # In a transaction of their own (the idempotency's, key or not): BEGIN, SELECT ... FOR
    # UPDATE, then the one statement storing the change (and what each one adds).
    "undoChange": 4,
    "redoChange": 4,
    "issueSeatToken": 4,
    "revokeSeatToken": 4,
    "recoverHostSeat": 5,  # its admission's read of the code's hash, then the four
    # The admission's read (a new token), then the transaction, and one SELECT of
    # pg_notify, which the other processes hear.
    "deleteGame": 7,
}

NAMES = ["Anna", "Bruno", "Carla", "Dario", "Elena"]
GAINS = {
    "gains": [
        {"source": {"kind": "action_space", "name": "Market"}, "resources": {"coins": 5}},
        {"source": {"kind": "card_immediate"}, "resources": {"wood": 2}, "privileges": [{}]},
    ]
}


def _players(count: int) -> list[dict[str, Any]]:
    return [
        {"name": name, "leaders": ["sisto_iv"] if i == 0 else []}
        for i, name in enumerate(NAMES[:count])
    ]


def _score_body(count: int) -> dict[str, Any]:
    return {"players": [{"id": f"p{i + 1}", "victory_points": 10} for i in range(count)]}


async def _count(
    app: FastAPI, call: Callable[[], Awaitable[httpx.Response]], status: int
) -> list[str]:
    with count_statements(app.state.db.engine) as statements:
        response = await call()
    assert response.status_code == status, response.text
    return list(statements)


async def _measure(app: FastAPI, client: httpx.AsyncClient, players: int) -> dict[str, list[str]]:
    """The statements of every measured operation, on a game of ``players`` players."""
    counts: dict[str, list[str]] = {}
    body = {
        "players": _players(players),
        "expansions": expansions_for(players),
        "seed": 42,
        "track_rounds": True,
    }
    handle: GameHandle | None = None

    handle_data: dict[str, Any] = {}

    async def create() -> httpx.Response:
        nonlocal handle
        response = await client.post("/v1/games", json=body)
        data = response.json()
        handle_data.update(data)
        handle = GameHandle(client, body, data["host_token"], data["player_tokens"], data["game"])
        return response

    counts["createGame"] = await _count(app, create, 201)
    assert handle is not None
    game = handle
    counts["getGame"] = await _count(app, lambda: client.get(game.url, headers=game.host()), 200)
    current = {**game.host(), "If-None-Match": f'"{game.game["version"]}"'}
    counts["getGameNotModified"] = await _count(
        app, lambda: client.get(game.url, headers=current), 304
    )
    counts["setPlayerFaith"] = await _count(
        app,
        lambda: client.put(f"{game.url}/players/p1/faith", json={"faith": 5}, headers=game.host()),
        200,
    )
    # p1 refuses (below), p2 supports by default, then short and eligible players in turn:
    # the same kinds of rows change for 2 and for 5 players.
    faith = {f"p{i + 1}": 1 if i >= 2 and i % 2 == 0 else 5 for i in range(players)}
    counts["setFaith"] = await _count(
        app,
        lambda: client.put(f"{game.url}/faith", json={"faith": faith}, headers=game.host()),
        200,
    )
    counts["setReportDecision"] = await _count(app, lambda: game.decide(1, "p1", "refuse"), 200)
    advance = f"{game.url}/round-advances"
    counts["advanceRound"] = await _count(
        app, lambda: client.post(advance, headers=game.host()), 200
    )
    assert (await client.post(advance, headers=game.host())).status_code == 200  # its report
    counts["resolveReport"] = await _count(
        app, lambda: game.resolve(1, default_choice="support"), 201
    )
    counts["getReport"] = await _count(
        app, lambda: client.get(f"{game.url}/reports/1", headers=game.host()), 200
    )
    counts["listGameEvents"] = await _count(
        app, lambda: client.get(f"{game.url}/events", headers=game.host()), 200
    )
    counts["calculatePlayerGains"] = await _count(
        app,
        lambda: client.post(
            f"{game.url}/players/p2/gain-adjustments", json=GAINS, headers=game.host()
        ),
        200,
    )
    counts["calculateGameFinalScores"] = await _count(
        app,
        lambda: client.post(
            f"{game.url}/final-scores", json=_score_body(players), headers=game.host()
        ),
        200,
    )
    counts["changePlayerFaith"] = await _count(
        app,
        lambda: client.post(
            f"{game.url}/players/p2/faith-changes", json={"delta": 1}, headers=game.host()
        ),
        200,
    )
    for operation, path in (("undoChange", "undo"), ("redoChange", "redo")):
        counts[operation] = await _count(
            app, lambda path=path: client.post(f"{game.url}/{path}", headers=game.host()), 200
        )
    seat = f"{game.url}/seats/p2/token"
    counts["issueSeatToken"] = await _count(
        app, lambda: client.post(seat, headers=game.host()), 200
    )
    counts["revokeSeatToken"] = await _count(
        app, lambda: client.delete(seat, headers=game.host()), 204
    )
    recovery = {"recovery_code": handle_data["recovery_code"]}
    recovered: dict[str, str] = {}

    async def recover() -> httpx.Response:
        response = await client.post(f"{game.url}/recovery", json=recovery)
        recovered.update(response.json())
        return response

    counts["recoverHostSeat"] = await _count(app, recover, 200)
    new_host = {"Authorization": f"Bearer {recovered['host_token']}"}
    counts["deleteGame"] = await _count(app, lambda: client.delete(game.url, headers=new_host), 204)
    return counts


def _show(statements: list[str]) -> str:
    return "\n".join(f"  {' '.join(s.split())[:160]}" for s in statements)


async def test_statement_counts_are_pinned(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_game(client)  # first use: connections and caches warm, as in a server
    pinned = PINNED[app.state.db.dialect_name]
    counts = await _measure(app, client, 4)
    actual = {name: len(s) for name, s in counts.items()}
    details = "\n".join(f"{name}: {len(s)}\n{_show(s)}" for name, s in counts.items())
    assert actual == pinned, f"statement counts changed:\n{details}"


@pytest.mark.parametrize(
    "operation",
    [
        "getGame",
        "getGameNotModified",
        "resolveReport",
        "setFaith",
        "createGame",
        "undoChange",
        "redoChange",
        "issueSeatToken",
        "deleteGame",
    ],
)
async def test_statements_do_not_grow_with_players(
    app: FastAPI, client: httpx.AsyncClient, operation: str
) -> None:
    """No N+1: the same number of statements for 2 and for 5 players."""
    await create_game(client)
    two = (await _measure(app, client, 2))[operation]
    five = (await _measure(app, client, 5))[operation]
    assert len(two) == len(five), f"2 players:\n{_show(two)}\n5 players:\n{_show(five)}"


async def test_a_refused_recovery_code_reads_the_version_and_hashes_not_the_state(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """A stranger guessing a recovery code costs one read of the game's version and hashes,
    the statement a 304 sends, and never a parse of the game's state."""
    game = await create_game(client)
    guess = {"recovery_code": "0" * 32}
    statements = await _count(app, lambda: client.post(f"{game.url}/recovery", json=guess), 401)
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(reads) == 1, _show(statements)
    assert "games.recovery_code_hash" in reads[0] and "games.state" not in reads[0], _show(reads)
