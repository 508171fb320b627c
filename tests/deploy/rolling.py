"""A rolling restart under load, for tests/deploy/test_rolling.py and bench/rolling.py.

nginx (deploy/nginx, Debian's, on the host) in front of three ``python -m app`` replicas on
one PostgreSQL database. Clients that retry as the TypeScript SDK does
(clients/typescript/src/transport.ts) play games through it while every game is followed
by a live stream that resumes with ``Last-Event-ID``; each replica in turn gets SIGTERM and
is started again on a release that adds a migration (a nullable column), which the first
restarted replica applies while the other two still run the previous release.

The replicas are processes, not containers: the image is tested on its own
(tests/deploy/test_image.py), and processes keep this run short and its figures about the
service and nginx rather than about a container runtime on a shared two-core machine.
"""

from __future__ import annotations

import asyncio
import compileall
import json
import os
import random
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
from alembic.script import ScriptDirectory

from tests.deploy.proxy import Nginx
from tests.support.servers import REPO_ROOT, Server

# The SDK's DEFAULT_RETRY and what it retries (transport.ts: retryable()).
RETRIES = 3
BASE_DELAY_S = 0.25
MAX_DELAY_S = 5.0
MAX_RETRY_AFTER_S = 30.0
RETRYABLE_STATUSES = {429, 502, 503, 504}

RELEASE_REVISION = "9001_rolling_release"
RELEASE_MIGRATION = '''"""The release a rolling restart brings in: one nullable column, which the
replicas of the previous release never read nor write, so both releases serve side by side."""

import sqlalchemy as sa
from alembic import op

revision = "{revision}"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The column needs the table's lock for a moment: wait for it only so long, rather
    # than queue every request of the running replicas behind a long transaction.
    op.execute("SET LOCAL lock_timeout = '5s'")
    op.add_column("games", sa.Column("release_note", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("games", "release_note")
'''

REPLICA_ENV = {
    "TRUSTED_PROXIES": "127.0.0.1/32",
    "GAME_CREATION_RATE": "0",
    "GAME_WRITE_RATE": "0",
}


@dataclass
class Scenario:
    replicas: int = 3
    games: int = 50  # each followed by one live stream
    clients: int = 10  # SDK clients playing the games, each a share of them, one call at a time
    steady_s: float = 15.0  # measured before the restarts, and again after them
    settle_s: float = 3.0  # after a restarted replica is ready, before the next one stops
    resolve_every: int = 6  # a game resolves its next report every this many of its steps


# ---- the SDK's retries --------------------------------------------------------------------


class OperationFailed(Exception):
    """A call the client could not complete within its retry policy."""


@dataclass
class Op:
    kind: str
    started: float
    seconds: float
    ok: bool
    tries: int
    detail: str = ""


def backoff(attempt: int) -> float:
    ceiling = min(MAX_DELAY_S, BASE_DELAY_S * 2**attempt)
    return ceiling / 2 + random.random() * (ceiling / 2)


def retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "").strip()
    return float(value) if value.isdigit() else None


def slug_of(response: httpx.Response) -> str:
    try:
        return str(response.json().get("type", "")).rsplit("/", 1)[-1]
    except (ValueError, AttributeError):
        return ""


class SdkClient:
    """One client as the SDK makes it: same Idempotency-Key on every try of a call,
    network errors, 429, 502, 503, 504 and ``idempotency-in-flight`` retried up to three
    times after ``Retry-After`` or a doubling backoff; the game's ETag sent as If-Match."""

    def __init__(self, http: httpx.AsyncClient, ops: list[Op]) -> None:
        self.http = http
        self.ops = ops

    async def call(
        self,
        kind: str,
        method: str,
        path: str,
        *,
        body: Any = None,
        token: str | None = None,
        keyed: bool = False,
        if_match: str | None = None,
    ) -> httpx.Response:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if keyed:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        if if_match:
            headers["If-Match"] = if_match
        started = time.monotonic()
        detail = ""
        for attempt in range(RETRIES + 1):
            try:
                response = await self.http.request(method, path, json=body, headers=headers)
            except httpx.TransportError as error:
                detail = f"{type(error).__name__}: {error}"
                if attempt < RETRIES:
                    await asyncio.sleep(backoff(attempt))
                    continue
                break
            if response.status_code < 400:
                self.ops.append(Op(kind, started, time.monotonic() - started, True, attempt + 1))
                return response
            detail = f"{response.status_code} {response.text[:300]}"
            transient = response.status_code in RETRYABLE_STATUSES or (
                response.status_code == 409 and slug_of(response) == "idempotency-in-flight"
            )
            wait = retry_after(response)
            wait = backoff(attempt) if wait is None else wait
            if transient and attempt < RETRIES and wait <= MAX_RETRY_AFTER_S:
                await asyncio.sleep(wait)
                continue
            break
        self.ops.append(Op(kind, started, time.monotonic() - started, False, attempt + 1, detail))
        raise OperationFailed(f"{kind} {method} {path}: {detail}")


# ---- a game played, and followed ----------------------------------------------------------


@dataclass
class Game:
    id: str
    token: str
    etag: str
    rng: random.Random
    steps: int = 0
    next_period: int = 1
    # period -> every answer the client got for its resolution (a replay included)
    resolutions: dict[int, list[Any]] = field(default_factory=dict)


PLAYERS = [{"name": "Anna", "leaders": ["sisto_iv"]}, {"name": "Bruno"}, {"name": "Carla"}]


async def create_game(client: SdkClient, seed: int) -> Game:
    created = await client.call(
        "create", "POST", "/v1/games", body={"players": PLAYERS, "seed": seed}, keyed=True
    )
    document = created.json()
    return Game(
        document["game"]["id"],
        document["host_token"],
        created.headers["etag"],
        random.Random(seed),
    )


async def step(
    client: SdkClient, game: Game, resolve_every: int, restarting: asyncio.Event
) -> None:
    """One turn at the table: a faith change, a read, a calculation; every few turns the
    decisions and the resolution of the next report. Reports II and III wait for the
    restarts to begin, so that decisions and resolutions happen while replicas restart
    however fast the machine plays the steady phase before them."""
    game.steps += 1
    base = f"/v1/games/{game.id}"
    # p1 and p3 always reach the threshold (3, 4, 5), p2 never does.
    faith = {
        "p1": game.rng.randint(5, 15),
        "p2": game.rng.randint(0, 2),
        "p3": game.rng.randint(6, 15),
    }
    answer = await client.call(
        "faith", "PUT", f"{base}/faith", body={"faith": faith}, token=game.token, if_match=game.etag
    )
    game.etag = answer.headers["etag"]
    read = await client.call("read", "GET", base, token=game.token)
    game.etag = read.headers["etag"]
    await client.call(
        "calculate",
        "POST",
        "/v1/calculations/gains",
        body={"gains": [{"source": {"kind": "card_immediate"}, "resources": {"stone": 2}}]},
    )
    period = game.next_period
    if period > 3 or game.steps % resolve_every or (period > 1 and not restarting.is_set()):
        return
    if period < 3:  # the last report needs no decisions (R-REP-6)
        for player, choice in (("p1", "support"), ("p3", "refuse")):
            decided = await client.call(
                "decide",
                "PUT",
                f"{base}/reports/{period}/decisions/{player}",
                body={"choice": choice},
                token=game.token,
                if_match=game.etag,
            )
            game.etag = decided.headers["etag"]
    resolved = await client.call(
        "resolve",
        "POST",
        f"{base}/reports/{period}/resolution",
        body={},
        token=game.token,
        keyed=True,
        if_match=game.etag,
    )
    game.etag = resolved.headers["etag"]
    game.resolutions.setdefault(period, []).append(resolved.json()["outcomes"])
    game.next_period += 1


@dataclass
class Follower:
    """A live stream of one game through nginx, resumed with Last-Event-ID after every end
    or break (after the stream's ``retry``, as the SDK waits), recording every seq it gets."""

    game: Game
    seqs: list[int] = field(default_factory=list)
    connections: int = 0
    refusals: int = 0
    longest_gap_s: float = 0.0
    opened: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self, http: httpx.AsyncClient, until: Callable[[], bool]) -> None:
        retry_s = 2.0
        failures = 0
        ended_at: float | None = None
        url = f"/v1/games/{self.game.id}/events/stream"
        while not until():
            headers = {"Authorization": f"Bearer {self.game.token}", "Accept": "text/event-stream"}
            if self.seqs:
                headers["Last-Event-ID"] = str(self.seqs[-1])
            wait = None
            try:
                async with http.stream("GET", url, headers=headers) as stream:
                    if stream.status_code != 200:
                        self.refusals += 1
                        wait = retry_after(stream) or backoff(min(failures, 6))
                        failures += 1
                    else:
                        self.connections += 1
                        self.opened.set()
                        if ended_at is not None:
                            self.longest_gap_s = max(
                                self.longest_gap_s, time.monotonic() - ended_at
                            )
                        failures = 0
                        async for line in stream.aiter_lines():
                            if line.startswith("retry: "):
                                retry_s = int(line[7:]) / 1000
                            elif line.startswith("data: "):
                                self.seqs.append(json.loads(line[6:])["seq"])
                            if until():
                                return
            except httpx.TransportError:
                pass
            ended_at = time.monotonic()
            await asyncio.sleep(retry_s if wait is None else wait)


# ---- replicas, the release and the run ----------------------------------------------------


class Replica(Server):
    """A ``python -m app`` on a port fixed for nginx's upstream, from ``cwd``'s code."""

    def __init__(self, database_url: str, log_dir: Path, name: str, port: int, cwd: Path) -> None:
        super().__init__(database_url, log_dir, name, cwd=cwd, env=dict(REPLICA_ENV))
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self.log_path = log_dir / f"{name}-{port}.log"

    def terminate(self, timeout: float) -> float:
        """SIGTERM, then the seconds until the process exited (AssertionError past ``timeout``)."""
        assert self.proc is not None
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError(f"{self.name} still running {timeout} s after SIGTERM") from None
        return time.monotonic() - started


def make_release(folder: Path) -> Path:
    """This checkout's code and migrations, plus one migration: the next release."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(REPO_ROOT / "app", folder / "app", ignore=ignore)
    shutil.copytree(REPO_ROOT / "migrations", folder / "migrations", ignore=ignore)
    (head,) = ScriptDirectory(str(REPO_ROOT / "migrations")).get_heads()
    (folder / "migrations" / "versions" / f"{RELEASE_REVISION}.py").write_text(
        RELEASE_MIGRATION.format(revision=RELEASE_REVISION, head=head)
    )
    # Compiled once here, as an installed release is, not by the first replica that starts.
    compileall.compile_dir(folder, quiet=1)
    return folder


def schema_revision(database_url: str) -> str:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert row is not None
    return str(row[0])


@dataclass
class Restart:
    replica: str
    stopped_at: float
    exit_s: float
    ready_at: float
    revision_after: str


@dataclass
class Outcome:
    """What a run measured; ``check`` and bench/rolling.py read it."""

    ops: list[Op]
    followers: list[Follower]
    games: list[Game]
    logs: dict[str, list[dict[str, Any]]]  # game id -> its event log, read at the end
    restarts: list[Restart]
    phases: dict[str, tuple[float, float]]
    loads: dict[str, float]  # the machine's load average (1 min) at each phase's end
    revision_before: str
    revision_after: str
    nginx_retried: int  # requests nginx sent to a second replica
    failures: list[str]  # the operations that stopped a client (each also in ``ops``)


async def _play(
    scenario: Scenario,
    base_url: str,
    ops: list[Op],
    games: list[Game],
    stop: asyncio.Event,
    restarting: asyncio.Event,
) -> list[str]:
    failures: list[str] = []
    limits = httpx.Limits(max_connections=scenario.clients * 2, keepalive_expiry=4.0)
    timeout = httpx.Timeout(30.0, connect=5.0)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=timeout) as http:

        async def player(share: list[Game]) -> None:
            client = SdkClient(http, ops)
            while not stop.is_set():
                for game in share:
                    if stop.is_set():
                        return
                    try:
                        await step(client, game, scenario.resolve_every, restarting)
                    except OperationFailed as failure:
                        failures.append(str(failure))
                        return

        shares = [games[n :: scenario.clients] for n in range(scenario.clients)]
        await asyncio.gather(*(player(share) for share in shares))
    return failures


async def run(scenario: Scenario, database_url: str, nginx_binary: str, folder: Path) -> Outcome:
    """The whole run: replicas and nginx up, games created and followed, steady traffic,
    each replica restarted in turn onto the release, steady traffic again, then the logs."""
    from tests.support.servers import free_port

    release = make_release(folder / "release")
    ports = [free_port() for _ in range(scenario.replicas)]
    replicas = [
        Replica(database_url, folder, f"old-{n + 1}", port, REPO_ROOT)
        for n, port in enumerate(ports)
    ]
    current = list(replicas)
    proxy = Nginx(nginx_binary, folder / "nginx", [f"127.0.0.1:{port}" for port in ports])
    ops: list[Op] = []
    restarts: list[Restart] = []
    try:
        for replica in replicas:
            replica.start()
        for replica in replicas:
            replica.wait_ready(timeout=120)
        proxy.start()
        revision_before = schema_revision(database_url)
        limits = httpx.Limits(max_connections=scenario.games * 2, keepalive_expiry=4.0)
        timeout = httpx.Timeout(60.0, connect=5.0)
        async with httpx.AsyncClient(
            base_url=proxy.base_url, limits=limits, timeout=timeout
        ) as http:
            setup = SdkClient(http, [])
            games = [await create_game(setup, seed) for seed in range(scenario.games)]
            followers = [Follower(game) for game in games]
            finished = False
            streams = [
                asyncio.create_task(follower.run(http, lambda: finished)) for follower in followers
            ]
            await asyncio.wait_for(
                asyncio.gather(*(follower.opened.wait() for follower in followers)), 60
            )
            stop, restarting = asyncio.Event(), asyncio.Event()
            play = asyncio.create_task(
                _play(scenario, proxy.base_url, ops, games, stop, restarting)
            )
            phases: dict[str, tuple[float, float]] = {}
            loads: dict[str, float] = {}
            start = time.monotonic()
            await asyncio.sleep(scenario.steady_s)
            phases["steady before"] = (start, time.monotonic())
            loads["steady before"] = os.getloadavg()[0]
            rolling_start = time.monotonic()
            restarting.set()
            for n, old in enumerate(replicas):
                if play.done():
                    break
                stopped_at = time.monotonic()
                exit_s = await asyncio.to_thread(old.terminate, 30)
                new = Replica(database_url, folder, f"new-{n + 1}", old.port, release)
                current[n] = new
                new.start()
                await asyncio.to_thread(new.wait_ready, 120)
                restarts.append(
                    Restart(
                        new.name,
                        stopped_at,
                        exit_s,
                        time.monotonic(),
                        schema_revision(database_url),
                    )
                )
                await asyncio.sleep(scenario.settle_s)
            phases["rolling restart"] = (rolling_start, time.monotonic())
            loads["rolling restart"] = os.getloadavg()[0]
            after_start = time.monotonic()
            await asyncio.sleep(scenario.steady_s)
            phases["steady after"] = (after_start, time.monotonic())
            loads["steady after"] = os.getloadavg()[0]
            stop.set()
            failures = await play
            # Every stream must catch up with its game's last change, then they all end.
            logs = {}
            for game in games:
                events = await http.get(
                    f"/v1/games/{game.id}/events",
                    params={"limit": 1000},
                    headers={"Authorization": f"Bearer {game.token}"},
                )
                logs[game.id] = events.json()["events"]
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and any(
                (f.seqs[-1] if f.seqs else 0) < len(logs[f.game.id]) for f in followers
            ):
                await asyncio.sleep(0.2)
            finished = True
            for task in streams:
                task.cancel()
            await asyncio.gather(*streams, return_exceptions=True)
        nginx_retried = sum(1 for line in proxy.access_log() if ", " in line.split(" up=", 1)[-1])
        return Outcome(
            ops,
            followers,
            games,
            logs,
            restarts,
            phases,
            loads,
            revision_before,
            schema_revision(database_url),
            nginx_retried,
            failures,
        )
    finally:
        proxy.stop()
        for replica in current:
            replica.stop()


# ---- what a run must show -----------------------------------------------------------------


def problems(outcome: Outcome) -> list[str]:
    """Everything a rolling restart must not do; empty when it did none of it."""
    found = [f"failed operation: {op.kind} {op.detail}" for op in outcome.ops if not op.ok]
    for follower in outcome.followers:
        expected = list(range(1, len(outcome.logs[follower.game.id]) + 1))
        if follower.seqs != expected:
            missed = sorted(set(expected) - set(follower.seqs))
            repeated = sorted({s for s in follower.seqs if follower.seqs.count(s) > 1})
            found.append(
                f"stream of {follower.game.id}: missed {missed[:10]}, repeated {repeated[:10]}, "
                f"got {len(follower.seqs)} of {len(expected)}"
            )
    for game in outcome.games:
        log = outcome.logs[game.id]
        if [event["seq"] for event in log] != list(range(1, len(log) + 1)):
            found.append(f"game {game.id}: its log is not 1..{len(log)}")
        resolved = [event for event in log if event["type"] == "report_resolved"]
        periods = [event["data"]["period"] for event in resolved]
        if sorted(periods) != sorted(game.resolutions) or len(set(periods)) != len(periods):
            found.append(
                f"game {game.id}: resolved {periods}, "
                f"the client resolved {sorted(game.resolutions)}"
            )
        for event in resolved:
            answers = game.resolutions.get(event["data"]["period"], [])
            if any(answer != event["data"]["outcomes"] for answer in answers):
                found.append(f"game {game.id}: an answer differs from the resolution it logged")
    if outcome.revision_after != RELEASE_REVISION:
        found.append(f"the schema is at {outcome.revision_after}, not {RELEASE_REVISION}")
    first = outcome.restarts[0] if outcome.restarts else None
    if first is None or first.revision_after != RELEASE_REVISION:
        found.append("the first restarted replica did not migrate the database")
    return found


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def phase_figures(outcome: Outcome) -> dict[str, dict[str, float]]:
    """Per phase: operations completed per second, their p50 and p99 (client-side, retries
    included) and the share that needed more than one try."""
    figures = {}
    for name, (start, end) in outcome.phases.items():
        ops = [op for op in outcome.ops if start <= op.started + op.seconds < end]
        seconds = [op.seconds for op in ops]
        figures[name] = {
            "seconds": end - start,
            "operations": len(ops),
            "per_second": len(ops) / (end - start) if end > start else 0.0,
            "p50_ms": percentile(seconds, 0.50) * 1000,
            "p99_ms": percentile(seconds, 0.99) * 1000,
            "retried": sum(1 for op in ops if op.tries > 1),
        }
    return figures
