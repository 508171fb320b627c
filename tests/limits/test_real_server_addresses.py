"""The real ``python -m app``: uvicorn believes X-Forwarded-For from the same peers as the
service (TRUSTED_PROXIES), no others; by default from none, not even 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.limits.conftest import GAME
from tests.support.servers import Server, running

LIMITS = {"GAME_CREATION_RATE": "0.001", "GAME_CREATION_BURST": "1"}


def _create(server: Server, forwarded: str) -> int:
    answer = httpx.post(
        f"{server.base_url}/v1/games",
        json=GAME,
        headers={"X-Forwarded-For": forwarded},
        timeout=60,
    )
    return answer.status_code


def test_a_spoofed_x_forwarded_for_does_not_escape_the_limit(
    sqlite_url: str, tmp_path: Path
) -> None:
    with running(Server(sqlite_url, tmp_path, "untrusting", env=LIMITS)) as (server,):
        assert _create(server, "198.51.100.1") == 201
        assert _create(server, "198.51.100.2") == 429


def test_behind_a_trusted_proxy_each_client_counts_alone(sqlite_url: str, tmp_path: Path) -> None:
    env = {**LIMITS, "TRUSTED_PROXIES": "127.0.0.1/32"}
    with running(Server(sqlite_url, tmp_path, "trusting", env=env)) as (server,):
        assert _create(server, "198.51.100.1") == 201
        assert _create(server, "198.51.100.2") == 201
        assert _create(server, "203.0.113.5, 198.51.100.1") == 429
