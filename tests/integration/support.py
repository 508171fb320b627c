"""Helpers for the integration tests: real ``python -m app`` servers as subprocesses, a
private PostgreSQL instance that a test may stop and start, HTTP helpers, and the event
log replay that every test compares with the stored state.

Nothing here touches the shared PostgreSQL server except through the throwaway databases
of the ``postgres_url`` fixture.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg

from tests.support.servers import Server, free_port, running

__all__ = ["Server", "free_port", "running"]

REPO_ROOT = Path(__file__).resolve().parents[2]
PG_BIN = Path("/usr/lib/postgresql/15/bin")
MAX_FAITH = 15
THRESHOLDS = {1: 3, 2: 4, 3: 5}


# ---- a private PostgreSQL ------------------------------------------------------------------


class PrivatePostgres:
    """A PostgreSQL cluster of our own in a temporary folder, on a free port, that a test
    may stop (``-m immediate``) and start again. ``initdb`` refuses root, so as root every
    command runs as the ``postgres`` OS user."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="vr-private-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.dir, user="postgres")

    @staticmethod
    def available() -> bool:
        return (PG_BIN / "initdb").exists() and (PG_BIN / "pg_ctl").exists()

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        command = [str(PG_BIN / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, timeout=60, check=check)

    def init(self) -> PrivatePostgres:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        return self

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log), "-w", "start")

    def stop(self) -> None:
        """Immediate shutdown: every backend ends at once, like a crash."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def cleanup(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def wait_accepting(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.url, connect_timeout=2):
                    return
            except psycopg.Error:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)


# ---- HTTP ---------------------------------------------------------------------------------


def http_client(base_url: str, connections: int = 64) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=base_url,
        timeout=httpx.Timeout(40.0, connect=5.0),
        limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
    )


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def etag_version(response: httpx.Response) -> int:
    return int(response.headers["ETag"].strip('"'))


def slug(response: httpx.Response) -> str | None:
    if not response.headers.get("content-type", "").startswith("application/problem+json"):
        return None
    return str(response.json().get("type", "")).rsplit("/", 1)[-1]


@dataclass
class Game:
    id: str
    host: str
    player_ids: list[str]

    @property
    def url(self) -> str:
        return f"/v1/games/{self.id}"

    @property
    def auth(self) -> dict[str, str]:
        return bearer(self.host)


async def create_game(client: httpx.AsyncClient, players: int, seed: int) -> Game:
    body = {"players": [{"name": f"P{i}"} for i in range(players)], "seed": seed}
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    data = response.json()
    return Game(data["game"]["id"], data["host_token"], sorted(data["player_tokens"]))


async def read_game(client: httpx.AsyncClient, game: Game) -> dict[str, Any]:
    response = await client.get(game.url, headers=game.auth)
    assert response.status_code == 200, response.text
    assert etag_version(response) == response.json()["version"]
    return dict(response.json())


async def all_events(client: httpx.AsyncClient, game: Game) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after = 0
    for _ in range(1000):
        response = await client.get(
            f"{game.url}/events", params={"after": after, "limit": 1000}, headers=game.auth
        )
        assert response.status_code == 200, response.text
        page = response.json()["events"]
        if not page:
            return events
        events.extend(page)
        after = page[-1]["seq"]
    raise AssertionError("more than a million events?")


# ---- the event log replay -----------------------------------------------------------------


@dataclass
class Replay:
    """The state of a game rebuilt from its events alone."""

    version: int = 0
    faith: dict[str, int] = field(default_factory=dict)
    vp: dict[str, int] = field(default_factory=dict)
    excommunications: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    leaders: dict[str, list[str]] = field(default_factory=dict)
    turn_order: list[str] = field(default_factory=list)
    reports: dict[int, str] = field(default_factory=lambda: {1: "open", 2: "open", 3: "open"})
    decisions: dict[int, dict[str, str]] = field(default_factory=lambda: {1: {}, 2: {}, 3: {}})
    resolutions: Counter[int] = field(default_factory=Counter)


def replay(events: list[dict[str, Any]]) -> Replay:
    """Rebuild a game from its log, checking on the way that the log is gap-free and that
    every event starts from the state the previous ones left (a lost update shows as a
    ``faith_set`` whose ``from`` is not the replayed faith)."""
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(events) + 1)), f"event seqs are not 1..n: {seqs}"
    assert events and events[0]["type"] == "game_created", events[:1]
    state = Replay()
    for event in events:
        data = event["data"]
        where = f"event {event['seq']} ({event['type']})"
        if event["type"] == "game_created":
            assert event["seq"] == 1, where
            for player in data["players"]:
                pid = player["id"]
                state.faith[pid] = 0
                state.vp[pid] = 0
                state.excommunications[pid] = []
                state.leaders[pid] = list(player.get("leaders", []))
                state.turn_order.append(pid)
        elif event["type"] == "faith_set":
            for change in data["changes"]:
                pid = change["player_id"]
                assert change["from"] == state.faith[pid], (
                    f"{where}: {pid} changes from {change['from']}, but the log before it "
                    f"leaves {state.faith[pid]} (lost or reordered update)"
                )
                assert 0 <= change["to"] <= MAX_FAITH and change["lost"] >= 0, where
                state.faith[pid] = change["to"]
        elif event["type"] == "decision_set":
            period = data["period"]
            assert state.reports[period] == "open", f"{where}: decision on a resolved report"
            state.decisions[period][data["player_id"]] = data["choice"]
        elif event["type"] == "report_resolved":
            period = data["period"]
            assert state.reports[period] == "open", f"{where}: report {period} resolved twice"
            for earlier in range(1, period):
                assert state.reports[earlier] == "resolved", f"{where}: resolved out of order"
            threshold = THRESHOLDS[period]
            for outcome in data["outcomes"]:
                pid = outcome["player_id"]
                assert outcome["faith_before"] == state.faith[pid], (
                    f"{where}: {pid} faith_before {outcome['faith_before']} but replayed "
                    f"faith is {state.faith[pid]}"
                )
                if period < 3 and outcome["faith_before"] >= threshold:
                    choice = state.decisions[period].get(pid) or data["default_choice"]
                    choice = choice or "support"
                    assert (outcome["outcome"] == "supported") == (choice == "support"), (
                        f"{where}: {pid} chose {choice!r} but the outcome is {outcome['outcome']}"
                    )
                state.faith[pid] = outcome["faith_after"]
                state.vp[pid] += outcome["victory_points"]["total"]
                if outcome["excommunicated"] and outcome["tile_id"] is not None:
                    state.excommunications[pid].append(
                        {"period": period, "tile_id": outcome["tile_id"]}
                    )
            state.reports[period] = "resolved"
            state.resolutions[period] += 1
        elif event["type"] == "leaders_set":
            state.leaders[data["player_id"]] = list(data["to"])
        elif event["type"] == "turn_order_set":
            state.turn_order = list(data["to"])
        else:
            raise AssertionError(f"{where}: unknown event type")
        state.version = event["seq"]
    return state


def assert_state_matches(state: Replay, game: dict[str, Any]) -> None:
    """The stored game equals the replay of its log, field by field."""
    gid = game["id"]
    assert game["version"] == state.version, (
        f"game {gid}: version {game['version']} but the last event seq is {state.version}"
    )
    for player in game["players"]:
        pid = player["id"]
        assert player["faith"] == state.faith[pid], (gid, pid, "faith")
        assert player["report_victory_points"] == state.vp[pid], (gid, pid, "vp")
        excommunications = [
            {"period": e["period"], "tile_id": e["tile_id"]} for e in player["excommunications"]
        ]
        assert excommunications == state.excommunications[pid], (gid, pid, "excommunications")
        assert list(player["leaders"]) == state.leaders[pid], (gid, pid, "leaders")
    assert game["turn_order"] == state.turn_order, gid
    statuses = {r["period"]: r["status"] for r in game["reports"]}
    assert statuses == state.reports, (gid, statuses, state.reports)


async def assert_log_equals_state(client: httpx.AsyncClient, game: Game) -> Replay:
    """Replay the whole log of ``game`` and compare it with GET game and every report."""
    events = await all_events(client, game)
    state = replay(events)
    assert_state_matches(state, await read_game(client, game))
    for period in (1, 2, 3):
        response = await client.get(f"{game.url}/reports/{period}", headers=game.auth)
        assert response.status_code == 200, response.text
        report = response.json()
        choices = {d["player_id"]: d["choice"] for d in report["decisions"] if d["choice"]}
        assert choices == state.decisions[period], (game.id, period, choices)
        assert report["status"] == state.reports[period]
    # The events of a game must also never change once read: read them again.
    assert await all_events(client, game) == events
    return state


def event_at(events: list[dict[str, Any]], seq: int) -> dict[str, Any]:
    assert 1 <= seq <= len(events), f"no event {seq} (log ends at {len(events)})"
    event = events[seq - 1]
    assert event["seq"] == seq
    return event


@dataclass(frozen=True)
class Acked:
    """A change that got a 2xx: where it must be in the log and what it must say."""

    game_id: str
    version: int
    kind: str  # "faith" | "faith_batch" | "decision" | "resolution"
    expected: dict[str, Any]


def assert_acked_in_log(acked: Acked, events: list[dict[str, Any]]) -> None:
    """A change that got a 2xx holds in the game as the version of its ETag left it: the
    event of that seq is the change itself, or the game was already so (a change that
    changes nothing logs no event and answers the version it found). A resolution always
    logs its own event."""
    where = f"game {acked.game_id} seq {acked.version}: {acked.kind} {acked.expected}"
    state = replay(events[: acked.version])
    if acked.kind in ("faith", "faith_batch"):
        got = {pid: state.faith[pid] for pid in acked.expected}
        assert got == acked.expected, f"{where} but the log leaves {got}"
    elif acked.kind == "decision":
        period, pid = acked.expected["period"], acked.expected["player_id"]
        got = state.decisions[period].get(pid)
        assert got == acked.expected["choice"], f"{where} but the log leaves {got}"
    elif acked.kind == "resolution":
        event = event_at(events, acked.version)
        data = event["data"]
        assert event["type"] == "report_resolved", where
        assert data["period"] == acked.expected["period"], where
        assert strip_outcomes(data) == acked.expected["outcomes"], where
    else:  # pragma: no cover
        raise AssertionError(acked.kind)


def assert_one_resolution_per_version(acks: list[Acked]) -> None:
    """Two changes may answer one version only when neither logged (both found the game
    so already); a resolution always logs, so no two resolutions share one."""
    versions = [a.version for a in acks if a.kind == "resolution"]
    assert len(set(versions)) == len(versions), "two resolutions answered one version"


def strip_outcomes(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: o[k] for k in ("player_id", "faith_after", "outcome")} for o in report["outcomes"]]


class Stats:
    """Counts of requests by operation and answer, printed at the end of a test."""

    def __init__(self) -> None:
        self.answers: Counter[tuple[str, int, str | None]] = Counter()
        self.transport_errors: Counter[str] = Counter()
        self.bad: list[str] = []

    def record(self, op: str, response: httpx.Response) -> None:
        self.answers[(op, response.status_code, slug(response))] += 1
        if response.status_code >= 500:
            self.bad.append(f"{op}: {response.status_code} {response.text[:300]}")

    @property
    def requests(self) -> int:
        return sum(self.answers.values()) + sum(self.transport_errors.values())

    def count(self, status: int) -> int:
        return sum(n for (_, s, _), n in self.answers.items() if s == status)

    def summary(self) -> str:
        rows = [
            f"  {op:<14} {status} {slug_ or '-':<24} {n}"
            for (op, status, slug_), n in sorted(
                self.answers.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or "")
            )
        ]
        rows += [f"  transport error {name}: {n}" for name, n in self.transport_errors.items()]
        return "\n".join(rows)


async def gather_bounded(coros: list[Any], timeout: float) -> list[Any]:
    """Run the client coroutines concurrently; fail (not hang) past ``timeout`` seconds."""
    return await asyncio.wait_for(asyncio.gather(*coros), timeout=timeout)
