"""Contract fixtures: the app on a clean migrated database with one created game, and a
tally of the requests schemathesis sends, printed at the end of the run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.main import create_app
from app.settings import Settings
from tests.settings import LIMITS_OFF
from tests.support.tile_packs import hor_pack

# "stateless" / "stateful" -> requests sent in this pytest run.
REQUESTS: Counter[str] = Counter()


@dataclass(frozen=True)
class ContractGame:
    """A created game: the ids and tokens the generated requests are pointed at, and a
    second game that tracks its rounds (for the round advances)."""

    id: str
    host_token: str
    player_tokens: dict[str, str]
    recovery_code: str = ""
    rounds_id: str = ""
    rounds_host_token: str = ""


@pytest.fixture(scope="session")
def request_tally() -> Counter[str]:
    """Count a sent request with ``request_tally["stateless"] += 1``."""
    return REQUESTS


@pytest.fixture
def contract_app(database_url: str, tmp_path: Path) -> Iterator[FastAPI]:
    # Streams and long-polls answer at once: a generated request must not wait for a
    # change nobody makes (tests/live covers them). A Houses of Renaissance pack to
    # enable: the stateful flow's game of five needs it (R-PLY-1).
    settings = Settings(
        database_url=database_url,
        tile_packs_dir=hor_pack(tmp_path),
        stream_max_seconds=0.05,
        long_poll_max_seconds=0.05,
        **LIMITS_OFF,
    )
    app = create_app(settings)
    yield app
    app.state.live_hub.stop()
    app.state.db.dispose()


@pytest.fixture
async def contract_game(contract_app: FastAPI) -> ContractGame:
    """Three players, seed 42 (tiles I-6, II-3, III-7); Anna holds Sisto IV; faith 5, 1, 9;
    a Faith change to Carla undone (so that a redo has something to redo)."""
    body = {
        "players": [
            {"name": "Anna", "leaders": ["sisto_iv"]},
            {"name": "Bruno"},
            {"name": "Carla"},
        ],
        "seed": 42,
    }
    transport = httpx.ASGITransport(app=contract_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/v1/games", json=body)
        assert response.status_code == 201, response.text
        data = response.json()
        # Period I threshold is 3: Anna and Carla may choose, Bruno may not.
        url, host = (
            f"/v1/games/{data['game']['id']}",
            {"Authorization": f"Bearer {data['host_token']}"},
        )
        response = await client.put(
            f"{url}/faith", json={"faith": {"p1": 5, "p2": 1, "p3": 9}}, headers=host
        )
        assert response.status_code == 200, response.text
        response = await client.post(
            f"{url}/players/p3/faith-changes", json={"delta": 1}, headers=host
        )
        assert response.status_code == 200, response.text
        response = await client.post(f"{url}/undo", headers=host)
        assert response.status_code == 200, response.text
        rounds = await client.post("/v1/games", json={**body, "track_rounds": True})
        assert rounds.status_code == 201, rounds.text
    return ContractGame(
        data["game"]["id"],
        data["host_token"],
        data["player_tokens"],
        data["recovery_code"],
        rounds.json()["game"]["id"],
        rounds.json()["host_token"],
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if REQUESTS:
        counts = ", ".join(f"{kind} {n}" for kind, n in sorted(REQUESTS.items()))
        terminalreporter.write_line(f"schemathesis requests sent: {counts}")
