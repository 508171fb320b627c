"""Games for a run, made through the API (as a client would), and written as a Lua table
for the wrk scripts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from bench.scenarios import PLAYERS, REPORT_FAITH


async def _seed_games(base_url: str, count: int, set_faith: bool, label: str) -> list[list[Any]]:
    """Create ``count`` 4-player games (and set their faith); return [id, host token, pids]."""
    games: list[list[Any]] = []
    limits = httpx.Limits(max_connections=16)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as client:
        queue: asyncio.Queue[int] = asyncio.Queue()
        for i in range(count):
            queue.put_nowait(i)

        async def worker() -> None:
            while not queue.empty():
                i = queue.get_nowait()
                create = {"players": PLAYERS, "seed": i}
                data = (await _retried(client.post, "/v1/games", json=create)).json()
                game_id, token = data["game"]["id"], data["host_token"]
                if set_faith:
                    await _retried(
                        client.put,
                        f"/v1/games/{game_id}/faith",
                        json={"faith": REPORT_FAITH},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                games.append([game_id, token, sorted(data["player_tokens"])])
                if len(games) % 2000 == 0:
                    print(f"    seeded {len(games)}/{count} {label}", flush=True)

        await asyncio.gather(*(worker() for _ in range(16)))
    return games


async def _retried(
    call: Callable[..., Awaitable[httpx.Response]], *args: Any, **kwargs: Any
) -> httpx.Response:
    """A seeding request, tried again if its connection is cut (on a loaded host a few
    are, out of thousands); a create tried again leaves at most an unused game."""
    for attempt in range(3):
        try:
            answer = await call(*args, **kwargs)
            return answer.raise_for_status()
        except httpx.TransportError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def seed(base_url: str, count: int, set_faith: bool, label: str, path: Path) -> list[list[Any]]:
    started = time.perf_counter()
    games = asyncio.run(_seed_games(base_url, count, set_faith, label))
    write_lua_data(games, path)
    print(f"    seeded {count} {label} in {time.perf_counter() - started:.1f}s", flush=True)
    return games


def write_lua_data(games: list[list[Any]], path: Path) -> None:
    """The games as a Lua table for the wrk scripts: {{id, token, {pids}}, ...}."""
    lines = ["return {"]
    for game_id, token, pids in games:
        quoted = ", ".join(f'"{p}"' for p in pids)
        lines.append(f'  {{"{game_id}", "{token}", {{{quoted}}}}},')
    lines.append("}")
    path.write_text("\n".join(lines) + "\n")
