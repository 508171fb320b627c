"""Attacks on the changes of stored games, and what the changes of *other* games meet
meanwhile: changes whose body never comes (no token either), and a game whose changes
are stuck (its row held locked, or every change of it slow). Each returns what every
victim change got: its status, its seconds and what it said."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.support.raw_http import connect

# Far past every bound of the server: a change that gets no answer within it is hung.
CLIENT_TIMEOUT_S = 30.0

#: One change's answer: its status, its seconds, and what it said (slug, Retry-After).
Answer = tuple[int, float, str]


@dataclass(frozen=True)
class Game:
    id: str
    host_token: str

    @property
    def url(self) -> str:
        return f"/v1/games/{self.id}"

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.host_token}"}


def create_games(base_url: str, count: int, source: str | None = None) -> list[Game]:
    """``count`` new games, created from ``source`` (None: the system's choice of address)."""
    games = []
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=base_url, timeout=CLIENT_TIMEOUT_S, transport=transport) as http:
        for seed in range(count):
            body = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": seed}
            response = http.post("/v1/games", json=body)
            response.raise_for_status()
            created = response.json()
            games.append(Game(created["game"]["id"], created["host_token"]))
    return games


@contextlib.contextmanager
def stalled_change_heads(port: int, path: str, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections that send the head of a change without a token, announce a
    body and never send it; closed at the end."""
    socks = []
    try:
        for _ in range(count):
            sock = connect(port, timeout=CLIENT_TIMEOUT_S)
            sock.sendall(
                f"PUT {path} HTTP/1.1\r\nHost: attack\r\nContent-Type: application/json\r\n"
                "Content-Length: 20\r\n\r\n".encode()
            )
            socks.append(sock)
        yield socks
    finally:
        for sock in socks:
            sock.close()


def _client(base_url: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=base_url,
        timeout=CLIENT_TIMEOUT_S,
        limits=httpx.Limits(max_connections=64, max_keepalive_connections=64),
    )


async def set_faith(http: httpx.AsyncClient, game: Game, faith: int) -> Answer:
    start = time.monotonic()
    try:
        response = await http.put(
            f"{game.url}/players/p1/faith", json={"faith": faith}, headers=game.auth
        )
    except httpx.HTTPError as exc:
        return 0, time.monotonic() - start, type(exc).__name__
    took = time.monotonic() - start
    slug = None
    if response.headers.get("content-type") == "application/problem+json":
        slug = response.json()["type"].rsplit("/", 1)[-1]
    said = f"{response.status_code} {slug} retry-after={response.headers.get('retry-after')}"
    return response.status_code, took, said


def stalled_bodies(port: int, base_url: str, *, stalled: int = 3, victims: int = 9) -> list[Answer]:
    """The review's attack: ``stalled`` tokenless change heads on one game whose bodies
    never come; meanwhile ``victims`` changes of three other games, one after the other."""
    games = create_games(base_url, 4)

    async def scenario() -> list[Answer]:
        async with _client(base_url) as http:
            with stalled_change_heads(port, f"{games[0].url}/players/p1/faith", stalled):
                await asyncio.sleep(0.5)  # the heads are in
                return [await set_faith(http, games[1 + i % 3], i % 10) for i in range(victims)]

    return asyncio.run(scenario())


def stuck_game_storm(
    base_url: str, stuck_game: Game, other_game: Game, *, stuck: int = 8, victims: int = 5
) -> tuple[list[Answer], list[Answer]]:
    """``stuck`` changes of ``stuck_game`` at once and, once they are in, ``victims``
    changes of ``other_game``, one after the other: what each got."""

    async def scenario() -> tuple[list[Answer], list[Answer]]:
        async with _client(base_url) as http:

            async def victims_after_a_moment() -> list[Answer]:
                await asyncio.sleep(0.5)  # the stuck game's changes are in and waiting
                return [await set_faith(http, other_game, i) for i in range(victims)]

            stuck_answers, victim_answers = await asyncio.gather(
                asyncio.gather(*(set_faith(http, stuck_game, i) for i in range(stuck))),
                victims_after_a_moment(),
            )
            return list(stuck_answers), victim_answers

    return asyncio.run(scenario())


def make_changes_slow(database: Path, game_id: str, rows: int = 250) -> None:
    """SQLite has no row locks: every change holds the database's one write lock while it
    runs. A game is stuck when its changes are slow (or many): a trigger makes every
    change of that one game burn a second or so of CPU in SQLite with the write lock
    held, as a heavy or hostile game's changes would."""
    with contextlib.closing(sqlite3.connect(database)) as conn:
        conn.execute("CREATE TABLE burn (x INTEGER)")
        conn.executemany("INSERT INTO burn VALUES (?)", [(i,) for i in range(rows)])
        conn.execute(
            "CREATE TRIGGER slow_game BEFORE UPDATE ON games"
            f" WHEN OLD.id = '{game_id}'"
            " BEGIN SELECT count(*) FROM burn AS a, burn AS b, burn AS c; END"
        )
        conn.commit()


def summary(answers: list[Answer]) -> dict[str, Any]:
    """Figures for bench/ATTACKS.md: the statuses, and the longest wait."""
    return {
        "statuses": dict(Counter(str(status) for status, _, _ in answers)),
        "seconds_max": round(max((took for _, took, _ in answers), default=0.0), 2),
    }
