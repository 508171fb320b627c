"""Faults under load, through real servers over real HTTP.

kill -9 (``test_kill9_during_writes_*``, SQLite file and a throwaway PostgreSQL database
on the shared server): one ``python -m app`` process, 3 games x 4 players, 24 concurrent
writers (single and batch faith PUTs with random values 0..20, decisions) plus one
resolver per game (with an Idempotency-Key). Each of the 2 rounds SIGKILLs the server
after 60 acknowledged changes (or 4 s) and restarts a new process on the same database.
After each restart: every change that got a 2xx is in the log at the seq of its ETag
with the data it was sent, the log replays to exactly the stored state (no half-applied
change), version == last seq, and a resolution retried with its Idempotency-Key replays
its first 201. About 300 to 700 requests and 2 faults (SIGKILL) per database.

PostgreSQL outage (``test_postgres_outage_gives_503_then_recovers``): a PRIVATE
PostgreSQL 15 cluster (``initdb`` into a temporary folder as the ``postgres`` OS user, its
own free port; never the shared server), one server process, 16 concurrent clients
(reads, faith PUTs, decisions, resolutions with and without Idempotency-Key, event log
reads) for the whole test. 2 cycles of
``pg_ctl stop -m immediate`` for 2.5 s, then start again: while it is down every answer
from a route that needs the database is a 503 ``service-unavailable`` problem with
``Retry-After``, never a 500; /readyz is 503; after the restart the SAME server process
serves a write 2xx within 10 s, and the log still replays to the state. About 1,000 to
2,500 requests and 2 faults (database stops).

Idempotency after an outage, private cluster, 1 client, 1 fault
(``test_key_of_a_resolution_that_got_503_is_free_after_the_outage``): a resolution is
held on the game row lock after its Idempotency-Key is claimed, PostgreSQL stops (503),
starts again, and the retry with the same key after Retry-After must be served. (It once
got 409 ``idempotency-in-flight`` for 30 s; the worker's row lock now marks "in flight".)

Counts are printed with ``-s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tests.integration.support import (
    Acked,
    Game,
    PrivatePostgres,
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
    running,
    slug,
    strip_outcomes,
)

GAMES = 3
PLAYERS = 4
BASE_FAITH = 5
WRITERS = 24
MAX_OPS_PER_WRITER = 200
KILL_ROUNDS = 2
KILL_AFTER_ACKS = 60
KILL_AFTER_S = 4.0

OUTAGE_CLIENTS = 16
OUTAGE_CYCLES = 2
UP_BEFORE_STOP_S = 1.0
DOWN_S = 2.5
RECOVERY_LIMIT_S = 10.0
MAX_OPS_PER_OUTAGE_CLIENT = 1500

# Phases of the outage test in which the database is up from send to answer.
HEALTHY = ("up", "recovered")

WRITE_ANSWERS = {
    (409, "not-eligible"),
    (409, "report-resolved"),
    (409, "report-out-of-order"),
}


async def _setup_games(client: httpx.AsyncClient) -> list[Game]:
    games = [await create_game(client, PLAYERS, seed=100 + i) for i in range(GAMES)]
    for game in games:
        response = await client.put(
            f"{game.url}/faith",
            json={"faith": dict.fromkeys(game.player_ids, BASE_FAITH)},
            headers=game.auth,
        )
        assert response.status_code == 200, response.text
    return games


class WriteLoad:
    """Writers that record every change acknowledged with a 2xx, until their server dies."""

    def __init__(self, client: httpx.AsyncClient, games: list[Game], rng: random.Random):
        self.client = client
        self.games = games
        self.rng = rng
        self.stats = Stats()
        self.acked: list[Acked] = []
        self.unexpected: list[str] = []
        self.stop = asyncio.Event()
        self.in_flight_at_kill = 0

    async def _send(self, op: str, method: str, url: str, **kwargs: Any) -> httpx.Response | None:
        try:
            response = await self.client.request(method, url, **kwargs)
        except httpx.TransportError as exc:
            # The server died under this request: its outcome is unknown (applied or not,
            # but never half-applied: the log check covers it).
            self.stats.transport_errors[type(exc).__name__] += 1
            self.in_flight_at_kill += 1
            return None
        self.stats.record(op, response)
        return response

    async def writer(self) -> None:
        for _ in range(MAX_OPS_PER_WRITER):
            if self.stop.is_set():
                return
            game = self.rng.choice(self.games)
            roll = self.rng.random()
            if roll < 0.45:
                pid = self.rng.choice(game.player_ids)
                value = self.rng.randint(0, 20)
                response = await self._send(
                    "faith",
                    "PUT",
                    f"{game.url}/players/{pid}/faith",
                    json={"faith": value},
                    headers=game.auth,
                )
                kind, expected = "faith", {pid: min(value, 15)}
            elif roll < 0.65:
                pids = self.rng.sample(game.player_ids, 2)
                values = {pid: self.rng.randint(0, 20) for pid in pids}
                response = await self._send(
                    "faith_batch",
                    "PUT",
                    f"{game.url}/faith",
                    json={"faith": values},
                    headers=game.auth,
                )
                kind, expected = "faith_batch", {p: min(v, 15) for p, v in values.items()}
            else:
                period = self.rng.choice((1, 1, 2))
                pid = self.rng.choice(game.player_ids)
                choice = self.rng.choice(("support", "refuse"))
                response = await self._send(
                    "decision",
                    "PUT",
                    f"{game.url}/reports/{period}/decisions/{pid}",
                    json={"choice": choice},
                    headers=game.auth,
                )
                kind = "decision"
                expected = {"period": period, "player_id": pid, "choice": choice}
            if response is None:
                return
            if 200 <= response.status_code < 300:
                self.acked.append(Acked(game.id, etag_version(response), kind, expected))
            elif (response.status_code, slug(response)) not in WRITE_ANSWERS:
                self.unexpected.append(f"{kind}: {response.status_code} {response.text[:300]}")

    async def resolver(self, game: Game, key: str, answers: dict[str, Any]) -> None:
        """One resolution of report I with ``key``, at a random moment of the load."""
        await asyncio.sleep(self.rng.uniform(0.1, 1.5))
        response = await self._send(
            "resolve",
            "POST",
            f"{game.url}/reports/1/resolution",
            json={"default_choice": "support"},
            headers={**game.auth, "Idempotency-Key": key},
        )
        answers[game.id] = response
        if response is None:
            return
        if response.status_code == 201:
            expected = {"period": 1, "outcomes": strip_outcomes(response.json())}
            self.acked.append(Acked(game.id, etag_version(response), "resolution", expected))
        elif (response.status_code, slug(response)) != (409, "report-resolved"):
            self.unexpected.append(f"resolve: {response.status_code} {response.text[:300]}")


async def _verify_after_restart(
    client: httpx.AsyncClient, games: list[Game], acked: list[Acked]
) -> int:
    """Every acknowledged change is in the log as sent; the log replays to the state."""
    checked = 0
    for game in games:
        await assert_log_equals_state(client, game)
        events = await all_events(client, game)
        mine = [a for a in acked if a.game_id == game.id]
        assert_one_resolution_per_version(mine)
        for change in mine:
            assert_acked_in_log(change, events)
            checked += 1
    return checked


async def _kill9_scenario(database_url: str, tmp_path: Path, label: str) -> None:
    started = time.monotonic()
    rng = random.Random(7)
    servers = [Server(database_url, tmp_path, f"{label}-0")]
    clients: list[httpx.AsyncClient] = []
    acked: list[Acked] = []
    stats_total: Counter[str] = Counter()
    keys = {}
    first_answers: dict[str, httpx.Response | None] = {}
    retry_outcomes: Counter[str] = Counter()
    try:
        servers[0].start().wait_ready()
        clients.append(http_client(servers[0].base_url))
        games = await _setup_games(clients[0])
        keys = {game.id: f"resolve-{game.id}" for game in games}
        for round_ in range(KILL_ROUNDS):
            load = WriteLoad(clients[-1], games, rng)
            tasks = [asyncio.ensure_future(load.writer()) for _ in range(WRITERS)]
            if round_ == 0:
                tasks += [
                    asyncio.ensure_future(load.resolver(game, keys[game.id], first_answers))
                    for game in games
                ]
            deadline = time.monotonic() + KILL_AFTER_S
            while len(load.acked) < KILL_AFTER_ACKS and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            servers[-1].kill9()
            killed_with_acks = len(load.acked)
            await gather_bounded(tasks, 60)
            assert killed_with_acks > 0, f"{label}: no change acknowledged before the kill"
            assert not load.stats.bad, "\n".join(load.stats.bad)
            assert not load.unexpected, "\n".join(load.unexpected[:20])
            acked += load.acked
            stats_total["requests"] += load.stats.requests
            stats_total["in_flight_at_kill"] += load.in_flight_at_kill
            stats_total["faults"] += 1

            # Restart on the same database (a new process; it migrates: a no-op).
            await clients[-1].aclose()
            servers.append(Server(database_url, tmp_path, f"{label}-{round_ + 1}"))
            servers[-1].start().wait_ready()
            clients.append(http_client(servers[-1].base_url))
            stats_total["checked"] += await _verify_after_restart(clients[-1], games, acked)
            print(
                f"\n[{label}] round {round_ + 1}: SIGKILL after {killed_with_acks} acked "
                f"changes; {load.stats.requests} requests, {load.in_flight_at_kill} in flight "
                f"at the kill\n{load.stats.summary()}"
            )

        # A resolution retried with its Idempotency-Key after the crashes.
        for game in games:
            first = first_answers.get(game.id)
            retry = await clients[-1].post(
                f"{game.url}/reports/1/resolution",
                json={"default_choice": "support"},
                headers={**game.auth, "Idempotency-Key": keys[game.id]},
            )
            stats_total["requests"] += 1
            first_status = "cut by the kill" if first is None else str(first.status_code)
            replayed = " replayed" if retry.headers.get("Idempotent-Replayed") else ""
            retry_outcomes[f"{first_status} -> {retry.status_code} {slug(retry)}{replayed}"] += 1
            if first is not None and first.status_code == 201:
                assert retry.status_code == 201, retry.text
                assert retry.headers.get("Idempotent-Replayed") == "true"
                assert retry.json() == first.json()
            elif first is None:
                # Unknown outcome (killed in flight): a replay, a fresh resolution, or the
                # crashed attempt's lease (IN_FLIGHT_LEASE) still holding the key.
                assert (retry.status_code, slug(retry)) in {
                    (201, None),
                    (409, "idempotency-in-flight"),
                }, retry.text
            else:
                assert (retry.status_code, slug(retry)) == (409, "report-resolved"), retry.text
        await _verify_after_restart(clients[-1], games, acked)
        print(
            f"[{label}] total: {WRITERS + GAMES} concurrent clients, "
            f"{stats_total['requests']} requests, {len(acked)} acked changes all found in "
            f"the log, {stats_total['in_flight_at_kill']} requests cut by the kills, "
            f"faults injected (SIGKILL) = {stats_total['faults']}, "
            f"time={time.monotonic() - started:.1f}s; resolution retried with its key after "
            f"the restarts: {dict(retry_outcomes)}"
        )
    finally:
        for client in clients:
            await client.aclose()
        for server in servers:
            server.stop()


async def test_kill9_during_writes_sqlite(sqlite_url: str, tmp_path: Path) -> None:
    await _kill9_scenario(sqlite_url, tmp_path, "kill9 sqlite")


@pytest.mark.postgres
async def test_kill9_during_writes_postgres(postgres_url: str, tmp_path: Path) -> None:
    await _kill9_scenario(postgres_url, tmp_path, "kill9 postgres")


# ---- PostgreSQL outage ------------------------------------------------------------------


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    """A PostgreSQL cluster of this test's own (never the shared server), removed after."""
    if not PrivatePostgres.available():
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    pg = PrivatePostgres()
    try:
        try:
            pg.init()
        except (subprocess.CalledProcessError, OSError) as exc:
            detail = getattr(exc, "stderr", b"") or b""
            pytest.skip(f"cannot initdb a private cluster: {exc} {detail.decode()[-300:]}")
        pg.start()
        pg.wait_accepting()
        yield pg
    finally:
        pg.cleanup()


def _check_unavailable(response: httpx.Response) -> str | None:
    """None when ``response`` is a proper 503 problem, else what is wrong with it."""
    if response.status_code != 503:
        return f"status {response.status_code}"
    if not response.headers.get("content-type", "").startswith("application/problem+json"):
        return f"content-type {response.headers.get('content-type')}"
    if not str(response.json().get("type", "")).endswith("service-unavailable"):
        return f"type {response.json().get('type')}"
    retry_after = response.headers.get("Retry-After", "")
    if not retry_after.isdigit():
        return f"Retry-After {retry_after!r}"
    return None


class OutageLoad:
    def __init__(self, client: httpx.AsyncClient, games: list[Game]) -> None:
        self.client = client
        self.games = games
        self.rng = random.Random(11)
        self.phase = "up"
        self.by_phase: Counter[tuple[str, int]] = Counter()
        self.stats = Stats()
        self.violations: list[str] = []
        self.spurious: list[str] = []
        # Resolutions with an Idempotency-Key that got a 503: retried after the outage.
        self.keyed_503: list[tuple[str, dict[str, str], Any]] = []
        self.stop = asyncio.Event()

    async def worker(self) -> None:
        for _ in range(MAX_OPS_PER_OUTAGE_CLIENT):
            if self.stop.is_set():
                return
            game = self.rng.choice(self.games)
            pid = self.rng.choice(game.player_ids)
            roll = self.rng.random()
            headers = dict(game.auth)
            if roll < 0.25:
                op, method, url, body = "get", "GET", game.url, None
            elif roll < 0.35:
                # Resolutions (with a fresh Idempotency-Key or none): the idempotency
                # path must fail as cleanly as the others while the database is down.
                op, method = "resolve", "POST"
                url = f"{game.url}/reports/{self.rng.randint(1, 3)}/resolution"
                body = {"default_choice": "support"}
                if self.rng.random() < 0.7:
                    headers["Idempotency-Key"] = f"outage-{self.rng.getrandbits(128):032x}"
            elif roll < 0.6:
                op, method = "faith", "PUT"
                url, body = f"{game.url}/players/{pid}/faith", {"faith": self.rng.randint(0, 9)}
            elif roll < 0.8:
                op, method = "decision", "PUT"
                url = f"{game.url}/reports/1/decisions/{pid}"
                body = {"choice": self.rng.choice(("support", "refuse"))}
            else:
                op, method, url, body = "events", "GET", f"{game.url}/events", None
            phase = self.phase
            try:
                response = await self.client.request(method, url, json=body, headers=headers)
            except httpx.TransportError as exc:
                self.violations.append(f"{op} ({phase}): no answer: {exc!r}")
                self.stats.transport_errors[type(exc).__name__] += 1
                return
            self.stats.record(op, response)
            self.by_phase[(phase, response.status_code)] += 1
            if response.status_code == 503 and phase == self.phase and phase in HEALTHY:
                # Sent and answered while the database was up the whole time.
                self.spurious.append(f"{op} ({phase}): 503 {response.text[:200]}")
            if response.status_code == 503 and "Idempotency-Key" in headers:
                self.keyed_503.append((url, headers, body))
            if response.status_code >= 500:
                problem = _check_unavailable(response)
                if problem is not None:
                    self.violations.append(f"{op} ({phase}): {problem}: {response.text[:300]}")
            elif response.status_code >= 300 and (response.status_code, slug(response)) not in {
                *WRITE_ANSWERS,
                (409, "idempotency-in-flight"),
            }:
                self.violations.append(f"{op} ({phase}): {response.status_code} {response.text}")
            await asyncio.sleep(self.rng.uniform(0.005, 0.02))


@pytest.mark.postgres
async def test_postgres_outage_gives_503_then_recovers(
    private_postgres: PrivatePostgres, tmp_path: Path
) -> None:
    started = time.monotonic()
    server = Server(private_postgres.url, tmp_path, "outage")
    with running(server):
        async with http_client(server.base_url) as client:
            games = await _setup_games(client)
            load = OutageLoad(client, games)
            tasks = [asyncio.ensure_future(load.worker()) for _ in range(OUTAGE_CLIENTS)]
            recoveries: list[float] = []
            try:
                for cycle in range(OUTAGE_CYCLES):
                    await asyncio.sleep(UP_BEFORE_STOP_S)
                    load.phase = "stopping"
                    await asyncio.to_thread(private_postgres.stop)
                    load.phase = "down"
                    await asyncio.sleep(DOWN_S)

                    ready = await client.get("/readyz")
                    assert _check_unavailable(ready) is None, (ready.status_code, ready.text)
                    game = games[0]
                    write = await client.put(
                        f"{game.url}/players/p1/faith", json={"faith": 1}, headers=game.auth
                    )
                    assert _check_unavailable(write) is None, (write.status_code, write.text)

                    load.phase = "restarting"
                    await asyncio.to_thread(private_postgres.start)
                    up_at = time.monotonic()
                    load.phase = "recovering"
                    recovered = None
                    while time.monotonic() - up_at < RECOVERY_LIMIT_S:
                        probe = await client.put(
                            f"{game.url}/players/p1/faith",
                            json={"faith": 2 + cycle},
                            headers=game.auth,
                        )
                        if probe.status_code == 200:
                            recovered = time.monotonic() - up_at
                            break
                        assert _check_unavailable(probe) is None, (probe.status_code, probe.text)
                        await asyncio.sleep(0.1)
                    assert recovered is not None, (
                        f"the server did not serve a write within {RECOVERY_LIMIT_S}s of "
                        f"PostgreSQL coming back:\n{server.log_tail()}"
                    )
                    recoveries.append(recovered)
                    assert (await client.get("/readyz")).status_code == 200
                    load.phase = "recovered"
                await asyncio.sleep(UP_BEFORE_STOP_S)
            finally:
                load.stop.set()
                await gather_bounded(tasks, 60)

            assert not load.violations, "\n".join(load.violations[:20])
            assert not load.spurious, "\n".join(load.spurious[:20])
            assert load.by_phase[("down", 503)] > 0, load.by_phase
            assert load.stats.count(500) == 0
            assert server.proc is not None and server.proc.poll() is None, "server restarted?"
            # A client retrying its 503'd resolution with the same key after the outage.
            # API.md: 409 idempotency-in-flight only "while the first is in flight"; a key
            # whose request died with the database stays claimed until IN_FLIGHT_LEASE
            # (30 s) ends, because releasing it needs the database (idempotency.py).
            retried: Counter[str] = Counter()
            for url, headers, body in load.keyed_503[:40]:
                retry = await client.post(url, json=body, headers=headers)
                retried[f"{retry.status_code} {slug(retry)}"] += 1
                assert retry.status_code < 500, retry.text
            for game in games:
                await assert_log_equals_state(client, game)
            print(
                f"[postgres outage] {sum(retried.values())} resolutions that got a 503 with "
                f"an Idempotency-Key, retried after recovery: {dict(retried)}"
            )
            print(
                f"\n[postgres outage] {OUTAGE_CLIENTS} concurrent clients, "
                f"{load.stats.requests} requests, faults injected (PostgreSQL stops) = "
                f"{OUTAGE_CYCLES}, recovered a write in "
                f"{', '.join(f'{r:.2f}s' for r in recoveries)} after each start, "
                f"answers by phase {dict(sorted(load.by_phase.items()))}, "
                f"time={time.monotonic() - started:.1f}s\n{load.stats.summary()}"
            )


@pytest.mark.postgres
async def test_key_of_a_resolution_that_got_503_is_free_after_the_outage(
    private_postgres: PrivatePostgres, tmp_path: Path
) -> None:
    """Deterministic: a row lock taken from outside holds the resolution after its key is
    claimed (committed), PostgreSQL stops (the request gets its 503), starts again, and
    the client retries with the same key and body once /readyz is 200 again."""
    server = Server(private_postgres.url, tmp_path, "outage-key")
    with running(server):
        async with http_client(server.base_url) as client:
            (game,) = [await create_game(client, PLAYERS, seed=5)]
            headers = {**game.auth, "Idempotency-Key": "resolve-once-0123456789abcdef"}
            url = f"{game.url}/reports/1/resolution"
            body = {"default_choice": "support"}
            blocker = await psycopg.AsyncConnection.connect(private_postgres.url)
            try:
                await blocker.execute("BEGIN")
                await blocker.execute("SELECT 1 FROM games WHERE id = %s FOR UPDATE", (game.id,))
                first = asyncio.ensure_future(client.post(url, json=body, headers=headers))
                async with await psycopg.AsyncConnection.connect(
                    private_postgres.url, autocommit=True
                ) as watcher:
                    for _ in range(100):  # until the resolution waits for the game row
                        cursor = await watcher.execute(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                            "'Lock' AND query LIKE '%FOR UPDATE%'"
                        )
                        row = await cursor.fetchone()
                        if row is not None and row[0] > 0:
                            break
                        await asyncio.sleep(0.05)
                    else:
                        raise AssertionError("the resolution never waited for the game row")
                await asyncio.to_thread(private_postgres.stop)
                answer = await asyncio.wait_for(first, 30)
            finally:
                with contextlib.suppress(psycopg.Error):
                    await blocker.close()
            assert _check_unavailable(answer) is None, (answer.status_code, answer.text)

            await asyncio.to_thread(private_postgres.start)
            for _ in range(100):
                if (await client.get("/readyz")).status_code == 200:
                    break
                await asyncio.sleep(0.1)
            retry_after = int(answer.headers["Retry-After"])
            await asyncio.sleep(retry_after)
            retry = await client.post(url, json=body, headers=headers)
            print(
                f"\n[idempotency after outage] first: {answer.status_code} {slug(answer)}; "
                f"retry after Retry-After={retry_after}s: {retry.status_code} {slug(retry)}"
            )
            assert retry.status_code == 201, retry.text
