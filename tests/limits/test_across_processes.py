"""The limits hold across replicas: two ``python -m app`` processes on one PostgreSQL
database share each address's creation limit and each game's write limit, also when the
requests race."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.limits.conftest import GAME
from tests.support.servers import Server, running

pytestmark = pytest.mark.postgres

# Three at once, and nothing refills while the test runs.
LIMITS = {
    "GAME_CREATION_RATE": "0.001",
    "GAME_CREATION_BURST": "3",
    "GAME_WRITE_RATE": "0.001",
    "GAME_WRITE_BURST": "3",
}


def _servers(postgres_url: str, tmp_path: Path) -> tuple[Server, Server]:
    first = Server(postgres_url, tmp_path, "first", env=LIMITS)
    second = Server(postgres_url, tmp_path, "second", migrate=False, env=LIMITS)
    return first, second


def test_creations_racing_on_two_processes_share_one_limit(
    postgres_url: str, tmp_path: Path
) -> None:
    first, second = _servers(postgres_url, tmp_path)
    with running(first, second):

        async def race() -> list[int]:
            async with httpx.AsyncClient(timeout=60) as client:
                answers = await asyncio.gather(
                    *(
                        client.post(f"{server.base_url}/v1/games", json=GAME)
                        for server in [first, second] * 5
                    )
                )
            return sorted(answer.status_code for answer in answers)

        assert asyncio.run(race()) == [201] * 3 + [429] * 7


def test_changes_to_one_game_on_two_processes_share_one_limit(
    postgres_url: str, tmp_path: Path
) -> None:
    first, second = _servers(postgres_url, tmp_path)
    with running(first, second):
        created = httpx.post(f"{first.base_url}/v1/games", json=GAME, timeout=60)
        assert created.status_code == 201, created.text
        game_id = created.json()["game"]["id"]
        host = {"Authorization": f"Bearer {created.json()['host_token']}"}
        answers = [
            httpx.put(
                f"{server.base_url}/v1/games/{game_id}/players/p1/faith",
                json={"faith": faith},
                headers=host,
                timeout=60,
            )
            for faith, server in enumerate([first, second, first, second], start=1)
        ]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        assert answers[-1].headers["Retry-After"].isdigit()
