"""Contract fixtures: the app on a clean migrated database with one created game, and a
tally of the requests schemathesis sends, printed at the end of the run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI

from app.main import create_app
from app.settings import Settings
from tests.settings import LIMITS_OFF

# "stateless" / "stateful" -> requests sent in this pytest run.
REQUESTS: Counter[str] = Counter()


@dataclass(frozen=True)
class ContractGame:
    """A created game: the ids and tokens the generated requests are pointed at."""

    id: str
    host_token: str
    player_tokens: dict[str, str]


@pytest.fixture(scope="session")
def request_tally() -> Counter[str]:
    """Count a sent request with ``request_tally["stateless"] += 1``."""
    return REQUESTS


@pytest.fixture
def contract_app(database_url: str) -> Iterator[FastAPI]:
    # Streams and long-polls answer at once: a generated request must not wait for a
    # change nobody makes (tests/live covers them).
    settings = Settings(
        database_url=database_url,
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
    """Three players, seed 42 (tiles I-6, II-3, III-7); Anna holds Sisto IV; faith 5, 1, 9."""
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
        response = await client.put(
            f"/v1/games/{data['game']['id']}/faith",
            json={"faith": {"p1": 5, "p2": 1, "p3": 9}},
            headers={"Authorization": f"Bearer {data['host_token']}"},
        )
        assert response.status_code == 200, response.text
    return ContractGame(data["game"]["id"], data["host_token"], data["player_tokens"])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if REQUESTS:
        counts = ", ".join(f"{kind} {n}" for kind, n in sorted(REQUESTS.items()))
        terminalreporter.write_line(f"schemathesis requests sent: {counts}")
