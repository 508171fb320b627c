"""The peer: boardgame.io's own server (``bench/peers/boardgameio``), installed from its
lock file, served with FlatFile storage, and seeded through its Lobby API.

Its Lobby API is HTTP; its moves are not (they travel over its socket.io transport), so
the write measured over HTTP is ``POST /games/{name}/{id}/update``: a player, with its
credentials, sets its own data (here ``{"faith": n}``), which FlatFile stores.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from bench.harness import REPO

PEER = REPO / "bench" / "peers" / "boardgameio"
GAME = "faith-track"
PLAYERS = 4
NAMES = ["Anna", "Bruno", "Carla", "Dario"]


def install() -> None:
    """``npm ci`` from the lock file when ``node_modules`` is missing or older than it."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        sys.exit("the boardgame.io peer needs Node.js (20) and npm on the PATH")
    installed = PEER / "node_modules" / ".package-lock.json"
    lock = PEER / "package-lock.json"
    if installed.exists() and installed.stat().st_mtime >= lock.stat().st_mtime:
        return
    print("  [peer] npm ci in bench/peers/boardgameio", flush=True)
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=PEER,
        check=True,
        timeout=600,
    )


def command(port: int, storage: Path) -> list[str]:
    return ["node", str(PEER / "server.js"), str(port), str(storage)]


ENV = {"NODE_ENV": "production"}


async def _post(client: httpx.AsyncClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A seeding request, tried again if its connection is cut (a loaded host)."""
    for attempt in range(3):
        try:
            answer = await client.post(path, json=body)
            return dict(answer.raise_for_status().json())
        except httpx.TransportError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def _create(client: httpx.AsyncClient) -> str:
    return str((await _post(client, f"/games/{GAME}/create", {"numPlayers": PLAYERS}))["matchID"])


async def _seed(base_url: str, count: int, join: bool) -> list[list[Any]]:
    matches: list[list[Any]] = []
    limits = httpx.Limits(max_connections=16)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as client:
        todo = list(range(count))

        async def worker() -> None:
            while todo:
                todo.pop()
                match_id = await _create(client)
                seats: list[list[str]] = []
                for seat in range(PLAYERS) if join else ():
                    joined = await _post(
                        client,
                        f"/games/{GAME}/{match_id}/join",
                        {"playerID": str(seat), "playerName": NAMES[seat]},
                    )
                    seats.append([str(seat), joined["playerCredentials"]])
                matches.append([match_id, seats])

        await asyncio.gather(*(worker() for _ in range(16)))
    return matches


def seed(base_url: str, count: int, join: bool, path: Path) -> list[list[Any]]:
    """``count`` matches of four players (all joined, with their credentials, if ``join``),
    written as a Lua table for the wrk scripts: {{id, {{seat, credentials}, ...}}, ...}."""
    started = time.perf_counter()
    matches = asyncio.run(_seed(base_url, count, join))
    lines = ["return {"]
    for match_id, seats in matches:
        quoted = ", ".join(f'{{"{s}", "{c}"}}' for s, c in seats)
        lines.append(f'  {{"{match_id}", {{{quoted}}}}},')
    path.write_text("\n".join([*lines, "}"]) + "\n")
    what = "joined matches" if join else "open matches"
    print(f"    seeded {count} {what} in {time.perf_counter() - started:.1f}s", flush=True)
    return matches
