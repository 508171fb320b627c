"""What the limits cost in SQL: a creation one upsert more, a change nothing more (the TAT
rides on the game row's locked SELECT and its UPDATE). Not timed."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from fastapi import FastAPI

from tests.limits.conftest import GAME, AppWith
from tests.statements import count_statements

ClientFor = Callable[[FastAPI], httpx.AsyncClient]


async def _statements(app: FastAPI, client: httpx.AsyncClient) -> tuple[list[str], list[str]]:
    await client.post("/v1/games", json=GAME)  # warm: connections and caches, as in a server
    with count_statements(app.state.db.engine) as create:
        created = await client.post("/v1/games", json=GAME)
    assert created.status_code == 201, created.text
    data = created.json()
    with count_statements(app.state.db.engine) as change:
        changed = await client.put(
            f"/v1/games/{data['game']['id']}/players/p1/faith",
            json={"faith": 4},
            headers={"Authorization": f"Bearer {data['host_token']}"},
        )
    assert changed.status_code == 200, changed.text
    return list(create), list(change)


async def test_the_limits_cost_one_statement_per_creation_and_none_per_change(
    app_with: AppWith, client_for: ClientFor
) -> None:
    off = app_with(game_creation_rate=0, game_write_rate=0)
    on = app_with()  # the defaults: both limits on
    create_off, change_off = await _statements(off, client_for(off))
    create_on, change_on = await _statements(on, client_for(on))
    assert len(create_on) == len(create_off) + 1, create_on
    assert sum("creation_limits" in statement for statement in create_on) == 1
    assert len(change_on) == len(change_off), change_on
