"""Attacks on stored games that only the bench runs (``bench/attacks.py`` groups
``guessable-idempotency-key``, ``player-flips``, ``recovery-codes`` (and
``recovery-codes-keyed``) and ``keyed-nothing``);
the tests of what they show are in tests/api and tests/limits. Each takes the server's
port and returns a dict of figures."""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench.harness import percentile

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


def _statuses(answers: list[int]) -> dict[str, int]:
    return {str(status): count for status, count in sorted(Counter(answers).items())}


def _ms(seconds: list[float], share: float) -> float:
    return round(percentile(seconds, share) * 1000, 1)


def recovery_codes(
    port: int, *, strangers: int, rate: float, seconds: float, keyed: bool = False
) -> dict[str, Any]:
    """Strangers, each from an address of its own (127.0.0.10 on), try recovery codes for
    ``seconds``, each ``rate`` a second (the same load whatever the server's answers take,
    so that before and after compare): wrong codes for a real game and for games that do
    not exist, in turn. Meanwhile another table (127.0.0.3) changes its own game one
    request after another. Does a code attempt hold what every game's changes share?
    ``keyed``: every attempt, and every change of the table, sends a fresh
    Idempotency-Key (a keyed change takes a request thread on PostgreSQL)."""
    base_url = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base_url, timeout=TIMEOUT) as http:
        target = http.post("/v1/games", json=GAME).json()["game"]["id"]
        table = http.post("/v1/games", json=GAME).json()
    wrong = {"recovery_code": "AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA"}
    until = time.monotonic() + seconds
    attempts: list[int] = []
    attempt_took: list[float] = []

    def stranger(n: int) -> None:
        transport = httpx.HTTPTransport(local_address=f"127.0.0.{10 + n}")
        with httpx.Client(base_url=base_url, timeout=TIMEOUT, transport=transport) as client:
            started, i = time.monotonic(), 0
            while time.monotonic() < until:
                game = target if i % 2 else uuid.uuid4().hex
                sent = time.perf_counter()
                key = {"Idempotency-Key": str(uuid.uuid4())} if keyed else {}
                answer = client.post(f"/v1/games/{game}/recovery", json=wrong, headers=key)
                attempt_took.append(time.perf_counter() - sent)
                attempts.append(answer.status_code)
                i += 1
                time.sleep(max(0.0, started + i / rate - time.monotonic()))

    threads = [threading.Thread(target=stranger, args=(n,)) for n in range(strangers)]
    for thread in threads:
        thread.start()
    changes: list[int] = []
    took: list[float] = []
    url = f"/v1/games/{table['game']['id']}/players/p1/faith"
    transport = httpx.HTTPTransport(local_address="127.0.0.3")
    headers = {"Authorization": f"Bearer {table['host_token']}"}
    with httpx.Client(base_url=base_url, timeout=TIMEOUT, transport=transport) as client:
        while time.monotonic() < until:
            started = time.perf_counter()
            key = {"Idempotency-Key": str(uuid.uuid4())} if keyed else {}
            faith = {"faith": 3 + len(changes) % 2}
            answer = client.put(url, json=faith, headers=headers | key)
            took.append(time.perf_counter() - started)
            changes.append(answer.status_code)
    for thread in threads:
        thread.join()
    return {
        "stranger_attempts": _statuses(attempts),
        "stranger_attempts_per_s": round(len(attempts) / seconds),
        "stranger_p50_ms": _ms(attempt_took, 0.5),
        "stranger_p99_ms": _ms(attempt_took, 0.99),
        "other_table_changes": _statuses(changes),
        "other_table_p50_ms": _ms(took, 0.5),
        "other_table_p99_ms": _ms(took, 0.99),
        "other_table_max_ms": round(max(took) * 1000, 1),
    }


def keyed_nothing(port: int, database: Path, *, requests: int) -> dict[str, Any]:
    """The host sets p1's Faith to 15, then sends ``requests`` Faith gains of 1, each
    with a fresh Idempotency-Key, one after another: each changes nothing (15 is the
    most). How many answers does the service store for a day?"""
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=TIMEOUT) as http:
        created = http.post("/v1/games", json=GAME).json()
        url = f"/v1/games/{created['game']['id']}/players/p1/faith"
        host = {"Authorization": f"Bearer {created['host_token']}"}
        http.put(url, json={"faith": 15}, headers=host).raise_for_status()
        gains = [
            http.post(
                f"{url}-changes",
                json={"delta": 1},
                headers={**host, "Idempotency-Key": str(uuid.uuid4())},
            ).status_code
            for _ in range(requests)
        ]
    with sqlite3.connect(database) as connection:
        (stored,) = connection.execute("SELECT count(*) FROM idempotency_keys").fetchone()
    return {f"{requests}_keyed_gains_at_15": _statuses(gains), "answers_stored": stored}
