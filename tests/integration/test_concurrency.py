"""Concurrency through real servers over real HTTP: no lost update, one resolution per
report, a log that always agrees with the state, and never a 5xx.

PostgreSQL: two ``python -m app`` processes started at the same time on one empty
throwaway database (both migrate: the migration lock serializes them); SQLite: one
process. Each
run, on 5 games x 4 players, clients spread at random over the servers:

- phase A, 50 concurrent clients: every faith starts at 3 (the period I threshold);
  40 incrementers (2 per player) each add 1 to a player's faith 3 times by
  read-modify-write with ``If-Match`` (retrying on 412), and 10 clients set period I
  decisions (no If-Match). Then every player's faith must be 3 + its number of
  successful increments (9): a lost update would show as less.
- phase B, 65 concurrent clients: per game 6 clients race to resolve report I (3 with
  the same Idempotency-Key, 2 with their own keys, 1 with none), 3 race to resolve
  report II (2 sharing a key; retrying on ``report-out-of-order``), 2 set random faith
  values 0..20 without If-Match, 1 sets two players' faith in one batch and 1 keeps
  changing decisions. Each report must get exactly one 201 that is not a replay; the
  other racers get replays of that very answer (same key only), 409 ``report-resolved``
  or 409 ``idempotency-in-flight``.
- then, for every game: the event seqs are 1..version, replaying the log (each
  ``faith_set`` must start from the replayed faith, each outcome's ``faith_before`` too)
  gives GET game and every report exactly, and every change that got a 2xx is in the
  log at the seq of its ETag with the data it was sent.

About 850 to 1,200 requests per database (the exact count depends on the 412 retries
and is printed with ``-s``); no fault is injected here (see test_faults.py).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.support import (
    Acked,
    Game,
    Server,
    Stats,
    all_events,
    assert_acked_in_log,
    assert_log_equals_state,
    assert_one_resolution_per_version,
    create_game,
    etag_version,
    gather_bounded,
    http_client,
    read_game,
    running,
    slug,
    strip_outcomes,
)

GAMES = 5
BASE_FAITH = 3
PLAYERS = 4
INCREMENTERS_PER_PLAYER = 2
INCREMENTS_EACH = 3
MAX_RMW_ATTEMPTS = 80
DECIDERS_PER_GAME = 2
DECISIONS_EACH = 5
# (Idempotency-Key label or None) for each racer of a report.
RACERS = {1: ["k1", "k1", "k1", "k2", "k3", None], 2: ["j1", "j1", None]}
MAX_RESOLVE_ATTEMPTS = 100
RACER_JITTER_S = 0.15  # racers start within this window, amid the writers
WRITES_EACH = 6
SCENARIO_TIMEOUT_S = 90


class Scenario:
    def __init__(self, clients: list[httpx.AsyncClient], seed: int) -> None:
        self.clients = clients
        self.rng = random.Random(seed)
        self.stats = Stats()
        self.acked: list[Acked] = []
        self.unexpected: list[str] = []
        self.increments: Counter[tuple[str, str]] = Counter()
        self.resolutions: dict[tuple[str, int], list[tuple[str | None, bool, Any]]] = defaultdict(
            list
        )
        self.clients_started = 0

    def client(self) -> httpx.AsyncClient:
        return self.rng.choice(self.clients)

    async def call(self, op: str, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            response = await self.client().request(method, url, **kwargs)
        except httpx.TransportError as exc:
            self.stats.transport_errors[type(exc).__name__] += 1
            raise
        self.stats.record(op, response)
        return response

    def expect(self, response: httpx.Response, op: str, *allowed: tuple[int, str | None]) -> None:
        if (response.status_code, slug(response)) not in allowed:
            self.unexpected.append(f"{op}: {response.status_code} {response.text[:300]}")

    # ---- clients ------------------------------------------------------------------------

    async def incrementer(self, game: Game, pid: str) -> None:
        self.clients_started += 1
        done = 0
        for _ in range(MAX_RMW_ATTEMPTS):
            if done == INCREMENTS_EACH:
                return
            read = await self.call("get", "GET", game.url, headers=game.auth)
            if read.status_code != 200:
                self.expect(read, "get")
                continue
            faith = next(p["faith"] for p in read.json()["players"] if p["id"] == pid)
            put = await self.call(
                "faith_rmw",
                "PUT",
                f"{game.url}/players/{pid}/faith",
                json={"faith": faith + 1},
                headers={**game.auth, "If-Match": read.headers["ETag"]},
            )
            if put.status_code == 200:
                assert put.json()["player"]["faith"] == faith + 1
                assert etag_version(put) == etag_version(read) + 1
                done += 1
                self.increments[(game.id, pid)] += 1
                self.acked.append(Acked(game.id, etag_version(put), "faith", {pid: faith + 1}))
            elif put.status_code == 412:
                await asyncio.sleep(self.rng.uniform(0, 0.02))
            else:
                self.expect(put, "faith_rmw")
        self.unexpected.append(f"incrementer {game.id}/{pid} gave up after {done} increments")

    async def decider(self, game: Game, periods: tuple[int, ...]) -> None:
        self.clients_started += 1
        for _ in range(DECISIONS_EACH):
            await asyncio.sleep(self.rng.uniform(0, 0.05))
            period = self.rng.choice(periods)
            pid = self.rng.choice(game.player_ids)
            choice = self.rng.choice(["support", "refuse"])
            response = await self.call(
                "decision",
                "PUT",
                f"{game.url}/reports/{period}/decisions/{pid}",
                json={"choice": choice},
                headers=game.auth,
            )
            if response.status_code == 200:
                decision = {"period": period, "player_id": pid, "choice": choice}
                self.acked.append(Acked(game.id, etag_version(response), "decision", decision))
            else:
                self.expect(
                    response,
                    "decision",
                    (409, "not-eligible"),
                    (409, "report-resolved"),
                    (409, "report-out-of-order"),
                )

    async def blind_writer(self, game: Game, batch: bool) -> None:
        self.clients_started += 1
        for _ in range(WRITES_EACH):
            await asyncio.sleep(self.rng.uniform(0, 0.03))
            if batch:
                pids = self.rng.sample(game.player_ids, 2)
                values = {pid: self.rng.randint(0, 20) for pid in pids}
                response = await self.call(
                    "faith_batch",
                    "PUT",
                    f"{game.url}/faith",
                    json={"faith": values},
                    headers=game.auth,
                )
            else:
                pid = self.rng.choice(game.player_ids)
                values = {pid: self.rng.randint(0, 20)}
                response = await self.call(
                    "faith_blind",
                    "PUT",
                    f"{game.url}/players/{pid}/faith",
                    json={"faith": values[pid]},
                    headers=game.auth,
                )
            if response.status_code != 200:
                self.expect(response, "faith_blind")
                continue
            capped = {pid: min(value, 15) for pid, value in values.items()}
            lost = {pid: value - capped[pid] for pid, value in values.items()}
            body = response.json()
            if batch:
                assert body["faith_lost"] == lost
                assert {p["id"]: p["faith"] for p in body["players"]} == capped
            else:
                assert body["faith_lost"] == lost[pid] and body["player"]["faith"] == capped[pid]
            kind = "faith_batch" if batch else "faith"
            self.acked.append(Acked(game.id, etag_version(response), kind, capped))

    async def racer(self, game: Game, period: int, key: str | None) -> None:
        self.clients_started += 1
        headers = dict(game.auth)
        if key is not None:
            headers["Idempotency-Key"] = f"{game.id}-{period}-{key}"
        await asyncio.sleep(self.rng.uniform(0, RACER_JITTER_S))
        for _ in range(MAX_RESOLVE_ATTEMPTS):
            response = await self.call(
                "resolve",
                "POST",
                f"{game.url}/reports/{period}/resolution",
                json={"default_choice": "support"},
                headers=headers,
            )
            kind = slug(response)
            if response.status_code == 201:
                replayed = response.headers.get("Idempotent-Replayed") == "true"
                report = response.json()
                self.resolutions[(game.id, period)].append((key, replayed, report))
                if not replayed:
                    expected = {"period": period, "outcomes": strip_outcomes(report)}
                    self.acked.append(
                        Acked(game.id, etag_version(response), "resolution", expected)
                    )
                return
            if response.status_code == 409 and kind == "report-out-of-order":
                await asyncio.sleep(0.025)
                continue
            self.expect(
                response, "resolve", (409, "report-resolved"), (409, "idempotency-in-flight")
            )
            return
        self.unexpected.append(f"racer {game.id}/{period}/{key}: still out of order")


async def run_scenario(servers: tuple[Server, ...], label: str) -> None:
    started = time.monotonic()
    clients = [http_client(server.base_url) for server in servers]
    try:
        scenario = Scenario(clients, seed=20240601)
        games = [
            await create_game(clients[i % len(clients)], PLAYERS, seed=i) for i in range(GAMES)
        ]

        # Every player starts at the period I threshold, so that decisions are accepted.
        for game in games:
            response = await clients[0].put(
                f"{game.url}/faith",
                json={"faith": dict.fromkeys(game.player_ids, BASE_FAITH)},
                headers=game.auth,
            )
            assert response.status_code == 200, response.text

        # Phase A: read-modify-write increments with If-Match, and decisions.
        phase_a = [
            scenario.incrementer(game, pid)
            for game in games
            for pid in game.player_ids
            for _ in range(INCREMENTERS_PER_PLAYER)
        ]
        phase_a += [
            scenario.decider(game, (1,)) for game in games for _ in range(DECIDERS_PER_GAME)
        ]
        clients_a = len(phase_a)
        await gather_bounded(phase_a, SCENARIO_TIMEOUT_S)
        for game in games:
            state = await read_game(clients[0], game)
            for player in state["players"]:
                increments = scenario.increments[(game.id, player["id"])]
                assert player["faith"] == BASE_FAITH + increments, (
                    f"{label}: lost update on {game.id}/{player['id']}: faith "
                    f"{player['faith']} after {increments} successful increments from "
                    f"{BASE_FAITH}"
                )

        # Phase B: resolution races with concurrent writers on the same games.
        phase_b = []
        for game in games:
            for period, keys in RACERS.items():
                phase_b += [scenario.racer(game, period, key) for key in keys]
            phase_b += [scenario.blind_writer(game, batch=False) for _ in range(2)]
            phase_b.append(scenario.blind_writer(game, batch=True))
            phase_b.append(scenario.decider(game, (1, 2)))
        clients_b = len(phase_b)
        scenario.rng.shuffle(phase_b)
        await gather_bounded(phase_b, SCENARIO_TIMEOUT_S)

        # Checks.
        assert not scenario.stats.bad, f"{label}: 5xx answers:\n" + "\n".join(scenario.stats.bad)
        assert not scenario.stats.transport_errors, scenario.stats.transport_errors
        assert not scenario.unexpected, f"{label}: unexpected answers:\n" + "\n".join(
            scenario.unexpected[:20]
        )
        for game in games:
            state = await assert_log_equals_state(clients[0], game)
            events = await all_events(clients[-1], game)
            for acked in scenario.acked:
                if acked.game_id == game.id:
                    assert_acked_in_log(acked, events)
            for period in RACERS:
                answers = scenario.resolutions[(game.id, period)]
                fresh = [a for a in answers if not a[1]]
                assert len(fresh) == 1, f"{label}: {len(fresh)} fresh 201s for {game.id}/{period}"
                assert state.resolutions[period] == 1 and state.reports[period] == "resolved"
                winner_key, _, winner_body = fresh[0]
                for key, replayed, body in answers:
                    if replayed:
                        assert key is not None and key == winner_key, (key, winner_key)
                        assert body == winner_body
            acks = [a for a in scenario.acked if a.game_id == game.id]
            assert_one_resolution_per_version(acks)
        elapsed = time.monotonic() - started
        print(
            f"\n[{label}] servers={len(servers)} games={GAMES}x{PLAYERS} "
            f"concurrent clients: phase A {clients_a}, phase B {clients_b}; "
            f"requests={scenario.stats.requests} 2xx-acked changes={len(scenario.acked)} "
            f"412 retries={scenario.stats.count(412)} 5xx={len(scenario.stats.bad)} "
            f"faults=0 time={elapsed:.1f}s\n{scenario.stats.summary()}"
        )
    finally:
        for client in clients:
            await client.aclose()


@pytest.mark.postgres
async def test_two_servers_one_postgres_database(postgres_url: str, tmp_path: Path) -> None:
    # Both start at once on the empty database and both migrate (the migration lock
    # makes one wait for the other; the second finds the schema at head).
    first = Server(postgres_url, tmp_path, "pg-a")
    second = Server(postgres_url, tmp_path, "pg-b")
    with running(first, second, together=True) as servers:
        await run_scenario(servers, "postgres, 2 processes")


async def test_one_server_sqlite(sqlite_url: str, tmp_path: Path) -> None:
    with running(Server(sqlite_url, tmp_path, "sqlite")) as servers:
        await run_scenario(servers, "sqlite, 1 process")
