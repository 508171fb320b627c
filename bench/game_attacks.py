"""Attacks on stored games that only the bench runs (``bench/attacks.py`` groups
``guessable-idempotency-key`` and ``player-flips``); the tests of what they show are in
tests/api. Each takes the server's port and returns a dict of figures."""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import httpx

WEAK_KEY = "a" * 22  # 22 base64url characters: the shortest key, and the first guessed
GAME = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 7}
TIMEOUT = 30.0


def guessable_idempotency_key(port: int) -> dict[str, Any]:
    """A client creates a game with the key ``aaaaaaaaaaaaaaaaaaaaaa``; a stranger, from
    another address, sends the same key and body: does it get the game's host token?"""
    base_url = f"http://127.0.0.1:{port}"
    headers = {"Idempotency-Key": WEAK_KEY}
    with httpx.Client(base_url=base_url, timeout=TIMEOUT) as creator:
        created = creator.post("/v1/games", json=GAME, headers=headers)
    stranger_transport = httpx.HTTPTransport(local_address="127.0.0.3")
    with httpx.Client(base_url=base_url, timeout=TIMEOUT, transport=stranger_transport) as http:
        replayed = http.post("/v1/games", json=GAME, headers=headers)
    body = replayed.json() if replayed.headers.get("content-type", "").endswith("json") else {}
    return {
        "creator_status": created.status_code,
        "stranger_status": replayed.status_code,
        "stranger_idempotent_replayed": replayed.headers.get("Idempotent-Replayed", "-"),
        "stranger_got_host_token": "host_token" in body,
    }


def _game_with_an_eligible_player(http: httpx.Client) -> tuple[str, str, str]:
    """A game whose p1 may choose in period I: its id, the host's and p1's tokens."""
    created = http.post("/v1/games", json=GAME)
    created.raise_for_status()
    answer = created.json()
    game_id, host = answer["game"]["id"], answer["host_token"]
    faith = http.put(
        f"/v1/games/{game_id}/faith",
        json={"faith": {"p1": 5, "p2": 0}},
        headers={"Authorization": f"Bearer {host}"},
    )
    faith.raise_for_status()
    return game_id, host, answer["player_tokens"]["p1"]


def _flip(http: httpx.Client, game_id: str, token: str, choice: str) -> int:
    return http.put(
        f"/v1/games/{game_id}/reports/1/decisions/p1",
        json={"choice": choice},
        headers={"Authorization": f"Bearer {token}"},
    ).status_code


def _resolve(http: httpx.Client, game_id: str, host: str) -> str:
    answer = http.post(
        f"/v1/games/{game_id}/reports/1/resolution",
        json={"default_choice": "support"},
        headers={"Authorization": f"Bearer {host}", "Idempotency-Key": str(uuid.uuid4())},
    )
    if answer.status_code < 400:
        return str(answer.status_code)
    return f"{answer.status_code} {answer.json().get('type', '').rsplit('/', 1)[-1]}"


def _version(http: httpx.Client, game_id: str, host: str) -> int:
    answer = http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {host}"})
    return int(answer.json()["version"])


def player_flips(port: int, *, flips: int) -> dict[str, Any]:
    """Player p1 flips their own decision ``flips`` times, one after the other, then the
    host resolves the report; and, on another game, p1 sends the same decision twice."""
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=TIMEOUT) as http:
        game_id, host, player = _game_with_an_eligible_player(http)
        statuses = Counter(
            str(_flip(http, game_id, player, ("support", "refuse")[i % 2])) for i in range(flips)
        )
        logged = _version(http, game_id, host)
        resolution = _resolve(http, game_id, host)
        again_id, again_host, again_player = _game_with_an_eligible_player(http)
        _flip(http, again_id, again_player, "support")
        before = _version(http, again_id, again_host)
        _flip(http, again_id, again_player, "support")
        repeated = _version(http, again_id, again_host) - before
    return {
        f"{flips}_flips": dict(statuses),
        "events_logged": logged,
        "host_resolution": resolution,
        "same_decision_again_logs": repeated,
    }
