"""A player's token spends only its own seat's share of a game's budgets; a change that
changes nothing logs nothing and spends nothing. On SQLite and on PostgreSQL.

Found by an attacker's review: 60 flips of a player's own decision made the host's
resolution 429, and 998 made the game 409 ``event-limit-reached`` for good.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from app.persistence.tables import IDEMPOTENCY_KEYS
from tests.limits.conftest import AppWith, slug

ClientFor = Callable[[FastAPI], httpx.AsyncClient]
NO_REFILL = 0.001  # nothing refills while a test runs: only the burst counts
GAME = {"players": [{"name": "Anna"}, {"name": "Bruno"}, {"name": "Carla"}], "seed": 42}


class Table:
    def __init__(self, client: httpx.AsyncClient, created: dict[str, Any]) -> None:
        self.client = client
        self.url = f"/v1/games/{created['game']['id']}"
        self.host = {"Authorization": f"Bearer {created['host_token']}"}
        self.players = {
            pid: {"Authorization": f"Bearer {token}"}
            for pid, token in created["player_tokens"].items()
        }

    async def version(self) -> int:
        answer = await self.client.get(self.url, headers=self.host)
        return int(answer.json()["version"])

    async def events(self) -> list[dict[str, Any]]:
        answer = await self.client.get(f"{self.url}/events", headers=self.host)
        return list(answer.json()["events"])

    async def flip(self, player: str, times: int) -> list[httpx.Response]:
        """The player changes its mind ``times`` times: each try asks for the other choice
        than the one stored (a refused try leaves it as it was)."""
        answers, choice = [], "support"
        for _ in range(times):
            answers.append(await self.decide(player, choice))
            if answers[-1].status_code == 200:
                choice = "refuse" if choice == "support" else "support"
        return answers

    async def decide(self, player: str, choice: str) -> httpx.Response:
        return await self.client.put(
            f"{self.url}/reports/1/decisions/{player}",
            json={"choice": choice},
            headers=self.players[player],
        )


async def _table(client: httpx.AsyncClient) -> Table:
    created = await client.post("/v1/games", json=GAME)
    assert created.status_code == 201, created.text
    table = Table(client, created.json())
    faith = await client.put(
        f"{table.url}/faith", json={"faith": {"p1": 5, "p2": 5, "p3": 1}}, headers=table.host
    )
    assert faith.status_code == 200, faith.text
    return table


async def test_a_players_flips_never_throttle_the_host(
    app_with: AppWith, client_for: ClientFor
) -> None:
    client = client_for(
        app_with(
            game_write_rate=NO_REFILL,
            game_write_burst=3,
            player_write_rate=NO_REFILL,
            player_write_burst=5,
        )
    )
    table = await _table(client)  # the host's faith entry: 1 of its 3
    flips = await table.flip("p1", 8)
    assert [f.status_code for f in flips] == [200] * 5 + [429] * 3
    assert slug(flips[-1]) == "too-many-requests"
    assert "by p1" in flips[-1].json()["detail"]
    # p2's seat has a budget of its own, and so has the host.
    assert (await table.decide("p2", "refuse")).status_code == 200
    leaders = await client.put(
        f"{table.url}/players/p3/leaders", json={"leaders": ["sisto_iv"]}, headers=table.host
    )
    assert leaders.status_code == 200, leaders.text
    resolved = await client.post(
        f"{table.url}/reports/1/resolution", json={"default_choice": "support"}, headers=table.host
    )
    assert resolved.status_code == 201, resolved.text


async def test_a_player_alone_cannot_fill_the_log_and_the_host_still_resolves(
    app_with: AppWith, client_for: ClientFor
) -> None:
    # A tenth of the log per player seat: 4 of 40.
    client = client_for(
        app_with(max_events_per_game=40, max_events_per_player=100, player_write_rate=0)
    )
    table = await _table(client)
    flips = await table.flip("p1", 6)
    assert [f.status_code for f in flips] == [200] * 4 + [409] * 2
    refused = flips[-1].json()
    assert slug(flips[-1]) == "seat-event-limit-reached" and refused["player_id"] == "p1"
    version = await table.version()
    assert version == 2 + 4  # creation, faith, four flips
    # Another player, and the host, still change the game.
    assert (await table.decide("p2", "support")).status_code == 200
    override = await client.put(
        f"{table.url}/reports/1/decisions/p1", json={"choice": "support"}, headers=table.host
    )
    assert override.status_code == 200, override.text
    resolved = await client.post(f"{table.url}/reports/1/resolution", json={}, headers=table.host)
    assert resolved.status_code == 201, resolved.text


async def test_a_change_that_changes_nothing_logs_no_event_and_keeps_the_version(
    app_with: AppWith, client_for: ClientFor
) -> None:
    # A burst of one per seat: a repetition that spent anything would be refused.
    client = client_for(
        app_with(
            game_write_rate=NO_REFILL,
            game_write_burst=6,
            player_write_rate=NO_REFILL,
            player_write_burst=1,
        )
    )
    table = await _table(client)
    url = table.url
    first = [
        await client.put(f"{url}/players/p1/faith", json={"faith": 7}, headers=table.host),
        await client.put(
            f"{url}/players/p1/leaders", json={"leaders": ["sisto_iv"]}, headers=table.host
        ),
        await client.put(
            f"{url}/turn-order", json={"turn_order": ["p2", "p1", "p3"]}, headers=table.host
        ),
        await table.decide("p1", "refuse"),
    ]
    assert [a.status_code for a in first] == [200] * 4, [a.text for a in first]
    version, events = await table.version(), await table.events()
    again = [
        await client.put(f"{url}/players/p1/faith", json={"faith": 7}, headers=table.host),
        await client.put(f"{url}/faith", json={"faith": {"p1": 7, "p2": 5}}, headers=table.host),
        await client.put(
            f"{url}/players/p1/leaders", json={"leaders": ["sisto_iv"]}, headers=table.host
        ),
        await client.put(
            f"{url}/turn-order", json={"turn_order": ["p2", "p1", "p3"]}, headers=table.host
        ),
        await table.decide("p1", "refuse"),
        await table.decide("p1", "refuse"),
    ]
    assert [a.status_code for a in again] == [200] * 6, [a.text for a in again]
    assert {a.headers["etag"] for a in again} == {f'"{version}"'}
    assert await table.version() == version
    assert await table.events() == events
    # The same If-Match rules hold for a repetition: a stale version is still a 412.
    stale = await client.put(
        f"{url}/players/p1/faith", json={"faith": 7}, headers={**table.host, "If-Match": '"1"'}
    )
    assert stale.status_code == 412


async def test_faith_above_the_cap_sent_again_still_says_what_it_loses(
    app_with: AppWith, client_for: ClientFor
) -> None:
    client = client_for(app_with(game_write_rate=0, player_write_rate=0))
    table = await _table(client)
    url = f"{table.url}/players/p1/faith"
    first = await client.put(url, json={"faith": 20}, headers=table.host)
    again = await client.put(url, json={"faith": 20}, headers=table.host)
    assert first.json()["faith_lost"] == again.json()["faith_lost"] == 5
    assert first.headers["etag"] == again.headers["etag"]


async def test_the_answers_a_seat_has_stored_are_bounded_by_its_budget(
    app_with: AppWith, client_for: ClientFor
) -> None:
    """Every answer stored for an Idempotency-Key is a row kept for a day: a seat may
    have no more of them stored than its budget of changes allows, even when each of its
    changes changes nothing (a Faith gain at 15 loses it all, and logs nothing)."""
    app = app_with(game_write_rate=NO_REFILL, game_write_burst=3, player_write_rate=0)
    client = client_for(app)
    table = await _table(client)  # the host's faith entry: 1 of its 3
    url = f"{table.url}/players/p1/faith"
    assert (await client.put(url, json={"faith": 15}, headers=table.host)).status_code == 200
    gains = [
        await client.post(
            f"{url}-changes",
            json={"delta": 1},
            headers={**table.host, "Idempotency-Key": str(uuid.uuid4())},
        )
        for _ in range(20)
    ]
    with app.state.db.engine.connect() as connection:
        stored = connection.execute(select(func.count()).select_from(IDEMPOTENCY_KEYS)).scalar()
    statuses = [g.status_code for g in gains]
    # The host's two entries left 1 of its 3: one gain is answered (and stored), then 429s.
    assert statuses == [200] + [429] * 19, statuses
    assert stored == 1
    # A retry of a stored one is replayed, and spends nothing more.
    first_key = gains[0].request.headers["Idempotency-Key"]
    replay = await client.post(
        f"{url}-changes", json={"delta": 1}, headers={**table.host, "Idempotency-Key": first_key}
    )
    assert replay.status_code == 200 and replay.headers["idempotent-replayed"] == "true"


async def test_a_players_keyed_change_of_nothing_spends_its_rate_not_its_share_of_the_log(
    app_with: AppWith, client_for: ClientFor
) -> None:
    """A player's stored answers are bounded by its own rate; a change that changes nothing
    takes no room in the log, so it is not refused for the player's share of it."""
    app = app_with(player_write_rate=NO_REFILL, player_write_burst=3, max_events_per_player=1)
    client = client_for(app)
    created = await client.post("/v1/games", json={**GAME, "players_enter_faith": True})
    table = Table(client, created.json())
    p1 = table.players["p1"]
    url = f"{table.url}/players/p1/faith"
    # p1's one change of the log, and 1 of its rate's 3.
    assert (await client.put(url, json={"faith": 15}, headers=p1)).status_code == 200
    gains = [
        await client.post(
            f"{url}-changes",
            json={"delta": 1},
            headers={**p1, "Idempotency-Key": str(uuid.uuid4())},
        )
        for _ in range(3)
    ]
    assert [g.status_code for g in gains] == [200, 200, 429], [g.text for g in gains]
    assert slug(gains[-1]) == "too-many-requests" and "by p1" in gains[-1].json()["detail"]
    assert await table.version() == 2  # created, p1's Faith: nothing else logged
