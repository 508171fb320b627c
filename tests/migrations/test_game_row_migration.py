"""Migration 0002 moves every stored game into one row and back, losing nothing.

A game stored by the 0001 schema (as the service before it wrote it: a resolved report
with outcomes, excommunications, decisions, a changed turn order, events) is upgraded; the
service then reads it as before (its document rendered on the first read) and changes it;
a downgrade gives back the rows of 0001.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from app.main import create_app
from app.persistence.db import normalize_url
from app.persistence.migrate import downgrade, upgrade
from app.settings import Settings
from tests.settings import LIMITS_OFF

GAME = "a" * 32
HOST = "host-token-for-the-migration-test"
ANNA = "anna-token-for-the-migration-test"
AT = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
# The payload a faith change has always logged (the events list serves it as stored).
FAITH_SET = {"changes": [{"player_id": "p1", "from": 0, "to": 2, "lost": 0}]}
OUTCOMES = [
    {
        "player_id": "p2",
        "faith_before": 5,
        "faith_after": 0,
        "threshold": 3,
        "outcome": "supported",
        "excommunicated": False,
        "tile_id": None,
        "victory_points": {"faith": 5, "sisto_iv": 5, "total": 10},
        "rules": ["R-REP-3", "R-REP-5", "R-FT-1", "R-REP-8"],
        "notes": [],
    },
    {
        "player_id": "p1",
        "faith_before": 2,
        "faith_after": 2,
        "threshold": 3,
        "outcome": "excommunicated",
        "excommunicated": True,
        "tile_id": "I-2",
        "victory_points": {"faith": 0, "sisto_iv": 0, "total": 0},
        "rules": ["R-REP-3", "R-REP-4"],
        "notes": [],
    },
]
ROWS_0001: dict[str, list[dict[str, Any]]] = {
    "games": [
        {
            "id": GAME,
            "version": 6,
            "seed": None,
            "expansions": json.dumps(["base"]),
            "tile_ids": json.dumps({"1": "I-2", "2": "II-7", "3": "III-4"}),
            "players_enter_faith": True,
            "host_token_hash": hashlib.sha256(HOST.encode()).hexdigest(),
            "created_at": AT,
            "updated_at": AT,
        }
    ],
    "players": [
        {
            "game_id": GAME,
            "id": "p1",
            "name": "Anna",
            "seat": 0,
            "turn_position": 1,
            "faith": 2,
            "report_victory_points": 0,
            "leaders": json.dumps([]),
            "token_hash": hashlib.sha256(ANNA.encode()).hexdigest(),
        },
        {
            "game_id": GAME,
            "id": "p2",
            "name": "Bruno",
            "seat": 1,
            "turn_position": 0,
            "faith": 4,
            "report_victory_points": 10,
            "leaders": json.dumps(["sisto_iv"]),
            "token_hash": "2" * 64,
        },
    ],
    "excommunications": [{"game_id": GAME, "player_id": "p1", "period": 1, "tile_id": "I-2"}],
    "reports": [
        {
            "game_id": GAME,
            "period": 1,
            "status": "resolved",
            "outcomes": json.dumps(OUTCOMES),
            "resolved_at": AT,
        },
        {"game_id": GAME, "period": 2, "status": "open", "outcomes": None, "resolved_at": None},
        {"game_id": GAME, "period": 3, "status": "open", "outcomes": None, "resolved_at": None},
    ],
    "report_decisions": [
        {"game_id": GAME, "period": 1, "player_id": "p2", "choice": "support", "updated_at": AT},
        {"game_id": GAME, "period": 2, "player_id": "p2", "choice": "refuse", "updated_at": AT},
    ],
    "events": [
        {"game_id": GAME, "seq": seq, "type": "faith_set", "at": AT, "data": json.dumps(FAITH_SET)}
        for seq in range(1, 7)
    ],
}
# Compared after a round trip (a decision's updated_at is not kept in the state).
COMPARED = {
    "games": "id, version, seed, expansions, tile_ids, players_enter_faith, host_token_hash",
    "players": "game_id, id, name, seat, turn_position, faith, report_victory_points, "
    "leaders, token_hash",
    "excommunications": "game_id, player_id, period, tile_id",
    "reports": "game_id, period, status, outcomes",
    "report_decisions": "game_id, period, player_id, choice",
    "events": "game_id, seq, type, data",
}


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def url_at_0001(request: pytest.FixtureRequest) -> str:
    url: str = request.getfixturevalue(
        "sqlite_url" if request.param == "sqlite" else "postgres_url"
    )
    upgrade(url, "0001_initial")
    with _engine(url).begin() as conn:
        for table, rows in ROWS_0001.items():
            for row in rows:
                columns = ", ".join(row)
                values = ", ".join(f":{c}" for c in row)
                conn.execute(text(f"INSERT INTO {table} ({columns}) VALUES ({values})"), row)
    return url


def _engine(url: str) -> Any:
    return create_engine(normalize_url(url), poolclass=NullPool)


def _rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    engine = _engine(url)
    with engine.connect() as conn:
        return {
            table: sorted(
                tuple(_plain(v) for v in row)
                for row in conn.execute(text(f"SELECT {columns} FROM {table}"))
            )
            for table, columns in COMPARED.items()
        }


def _plain(value: Any) -> Any:
    """JSON text and JSON values compare as the same data."""
    if isinstance(value, str) and value[:1] in "[{":
        return json.dumps(json.loads(value), sort_keys=True)
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return value


async def test_a_stored_game_reads_and_changes_the_same_after_the_upgrade(url_at_0001: str) -> None:
    upgrade(url_at_0001)
    app = create_app(Settings(database_url=url_at_0001, **LIMITS_OFF))
    host = {"Authorization": f"Bearer {HOST}"}
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            game = await client.get(f"/v1/games/{GAME}", headers=host)
            assert game.status_code == 200, game.text
            body = game.json()
            assert game.headers["etag"] == '"6"'
            assert body["turn_order"] == ["p2", "p1"]
            assert [
                (p["id"], p["faith"], p["report_victory_points"], p["leaders"])
                for p in body["players"]
            ] == [
                ("p1", 2, 0, []),
                ("p2", 4, 10, ["sisto_iv"]),
            ]
            assert body["players"][0]["excommunications"] == [{"period": 1, "tile_id": "I-2"}]
            assert [r["status"] for r in body["reports"]] == ["resolved", "open", "open"]
            assert body["tiles"]["1"]["id"] == "I-2" and body["players_enter_faith"] is True

            report = (await client.get(f"/v1/games/{GAME}/reports/1", headers=host)).json()
            assert report["outcomes"] == OUTCOMES
            assert report["resolved_at"] is not None
            assert datetime.fromisoformat(report["resolved_at"].replace("Z", "+00:00")) == AT
            second = (await client.get(f"/v1/games/{GAME}/reports/2", headers=host)).json()
            assert [(d["player_id"], d["choice"]) for d in second["decisions"]] == [
                ("p2", "refuse"),
                ("p1", None),
            ]
            # A player's token still works, a stranger's does not, and the game still changes.
            anna = {"Authorization": f"Bearer {ANNA}"}
            assert (await client.get(f"/v1/games/{GAME}", headers=anna)).status_code == 200
            stranger = {"Authorization": "Bearer x"}
            assert (await client.get(f"/v1/games/{GAME}", headers=stranger)).status_code == 401
            changed = await client.put(
                f"/v1/games/{GAME}/players/p1/faith",
                json={"faith": 7},
                headers={**host, "If-Match": '"6"'},
            )
            assert changed.status_code == 200, changed.text
            events = (await client.get(f"/v1/games/{GAME}/events", headers=host)).json()
            assert [e["seq"] for e in events["events"]] == [1, 2, 3, 4, 5, 6, 7]
    finally:
        app.state.db.dispose()


def test_a_downgrade_gives_back_the_rows_of_0001(url_at_0001: str) -> None:
    before = _rows(url_at_0001)
    upgrade(url_at_0001)
    downgrade(url_at_0001, "0001_initial")
    assert _rows(url_at_0001) == before
