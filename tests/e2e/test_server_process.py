"""The real service: ``python -m app --port <free port>`` as a subprocess (it migrates,
then serves), driven over real HTTP through a full game, on SQLite and PostgreSQL. The
server is always stopped with SIGTERM and waited for, even when the test fails."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.servers import Server, running


def start_server(database_url: str, log_dir: Path) -> Iterator[str]:
    server = Server(database_url, log_dir, "e2e")
    with running(server):
        yield server.base_url
    # A clean shutdown on SIGTERM: uvicorn shuts down gracefully, then (since 0.29)
    # re-raises the signal it caught, so the exit is 0 or "terminated by SIGTERM".
    assert server.proc is not None
    assert server.proc.returncode in (0, -signal.SIGTERM), server.log_tail()
    assert "Traceback" not in server.log_path.read_text()


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[str]:
    yield from start_server(f"sqlite:///{tmp_path}/e2e.db", tmp_path)


@pytest.fixture
def postgres_server(postgres_url: str, tmp_path: Path) -> Iterator[str]:
    yield from start_server(postgres_url, tmp_path)


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    assert response.headers.get("x-request-id")
    return response.json()


def play_full_game(base: str) -> None:
    with httpx.Client(base_url=base, timeout=10) as http:
        assert ok(http.get("/healthz"))
        created = ok(
            http.post(
                "/v1/games",
                json={
                    "players": [
                        {"name": "Anna", "leaders": ["sisto_iv"]},
                        {"name": "Bruno"},
                        {"name": "Carla", "leaders": ["santa_rita"]},
                    ],
                    "seed": 42,
                },
                headers={"Idempotency-Key": "e2e-create-0123456789abcdef"},
            ),
            201,
        )
        game_id = created["game"]["id"]
        url = f"/v1/games/{game_id}"
        host = {"Authorization": f"Bearer {created['host_token']}"}
        player = {p: {"Authorization": f"Bearer {t}"} for p, t in created["player_tokens"].items()}
        replay = http.post(
            "/v1/games",
            json={
                "players": [
                    {"name": "Anna", "leaders": ["sisto_iv"]},
                    {"name": "Bruno"},
                    {"name": "Carla", "leaders": ["santa_rita"]},
                ],
                "seed": 42,
            },
            headers={"Idempotency-Key": "e2e-create-0123456789abcdef"},
        )
        assert replay.headers["idempotent-replayed"] == "true"
        assert replay.json() == created

        # Period I (tile I-6): Anna supports, Bruno is short, Carla refuses.
        ok(http.put(f"{url}/faith", json={"faith": {"p1": 5, "p2": 2, "p3": 4}}, headers=host))
        ok(
            http.put(
                f"{url}/reports/1/decisions/p1", json={"choice": "support"}, headers=player["p1"]
            )
        )
        ok(
            http.put(
                f"{url}/reports/1/decisions/p3", json={"choice": "refuse"}, headers=player["p3"]
            )
        )
        first = ok(
            http.post(
                f"{url}/reports/1/resolution",
                json={},
                headers={
                    **host,
                    "Idempotency-Key": "e2e-resolve-1-0123456789ab",
                    "If-Match": '"4"',
                },
            ),
            201,
        )
        assert [o["outcome"] for o in first["outcomes"]] == [
            "supported",
            "excommunicated",
            "excommunicated",
        ]
        assert first["outcomes"][0]["victory_points"] == {"faith": 5, "sisto_iv": 5, "total": 10}

        # Period II (tile II-3): everyone eligible; the default supports.
        ok(http.put(f"{url}/faith", json={"faith": {"p1": 4, "p2": 6, "p3": 20}}, headers=host))
        second = ok(
            http.post(
                f"{url}/reports/2/resolution", json={"default_choice": "support"}, headers=host
            ),
            201,
        )
        assert [o["victory_points"]["total"] for o in second["outcomes"]] == [9, 7, 30]

        # Period III (tile III-7): no decisions needed.
        ok(http.put(f"{url}/faith", json={"faith": {"p1": 3, "p2": 9, "p3": 0}}, headers=host))
        third = ok(http.post(f"{url}/reports/3/resolution", json={}, headers=host), 201)
        assert [o["outcome"] for o in third["outcomes"]] == [
            "excommunicated",
            "supported",
            "excommunicated",
        ]
        assert [o["victory_points"]["total"] for o in third["outcomes"]] == [3, 13, 0]

        state = ok(http.get(url, headers=player["p2"]))
        assert state["version"] == 1 + 4 + 2 + 2  # create; faith, 2 choices, resolve; ...
        assert [p["report_victory_points"] for p in state["players"]] == [22, 20, 30]
        assert [[e["tile_id"] for e in p["excommunications"]] for p in state["players"]] == [
            ["III-7"],
            ["I-6"],
            ["I-6", "III-7"],
        ]
        assert [r["status"] for r in state["reports"]] == ["resolved"] * 3

        gains = ok(
            http.post(
                f"{url}/players/p3/gain-adjustments",
                json={"gains": [{"source": {"kind": "card_immediate"}, "resources": {"coins": 2}}]},
                headers=player["p3"],
            )
        )
        assert gains["total"] == {"coins": 4}  # Santa Rita doubles; I-6 reduces no gain

        scores = ok(
            http.post(
                f"{url}/final-scores",
                json={
                    "players": [
                        {"id": "p1", "victory_points": 40, "resources": {"coins": 3}},
                        {"id": "p2", "victory_points": 35, "military_points": 6},
                        {"id": "p3", "victory_points": 50, "resources": {"wood": 2, "stone": 3}},
                    ]
                },
                headers=host,
            )
        )
        totals = {p["player_id"]: p["total"] for p in scores["players"]}
        # III-7 costs each resource left: p1 -3, p3 -5 (and 5 resources pay 1 VP).
        assert totals == {"p1": 37, "p2": 40, "p3": 46}

        log = ok(http.get(f"{url}/events", headers=host))["events"]
        assert [e["seq"] for e in log] == list(range(1, state["version"] + 1))
        unknown = http.get("/v1/games/nope", headers=host)
        assert unknown.status_code == 404
        assert unknown.headers["content-type"].startswith("application/problem+json")


def test_full_game_over_http_on_sqlite(sqlite_server: str) -> None:
    play_full_game(sqlite_server)


@pytest.mark.postgres
def test_full_game_over_http_on_postgres(postgres_server: str) -> None:
    play_full_game(postgres_server)
