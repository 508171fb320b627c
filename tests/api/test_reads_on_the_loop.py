"""A game's reads (its document, a report, and their 304s, and the calculations on its
stored state) run on the event loop on both databases: no unit of work on a thread
(app/persistence/sqlite_reads.py and async_reads.py); what a read may not do there is read
again on a thread (tests/persistence)."""

from __future__ import annotations

import threading
import uuid

from tests.api.conftest import GameHandle


async def test_a_game_and_its_reports_are_read_with_no_thread(
    game: GameHandle, threads: list[threading.Thread]
) -> None:
    await game.set_faith(p1=4)
    threads.clear()
    for url in (game.url, *(f"{game.url}/reports/{period}" for period in (1, 2, 3))):
        read = await game.client.get(url, headers=game.player("p2"))
        assert read.status_code == 200, read.text
        held = {**game.player("p2"), "If-None-Match": read.headers["etag"]}
        assert (await game.client.get(url, headers=held)).status_code == 304
    assert threads == []


async def test_the_calculations_on_a_stored_game_read_it_with_no_thread(
    game: GameHandle, threads: list[threading.Thread]
) -> None:
    threads.clear()
    gains = {"gains": [{"source": {"kind": "action_space"}, "resources": {"coins": 2}}]}
    adjusted = await game.client.post(
        f"{game.url}/players/p2/gain-adjustments", json=gains, headers=game.player("p2")
    )
    assert adjusted.status_code == 200, adjusted.text
    players = {"players": [{"id": p} for p in ("p1", "p2", "p3")]}
    scored = await game.client.post(f"{game.url}/final-scores", json=players, headers=game.host())
    assert scored.status_code == 200, scored.text
    assert threads == []


async def test_a_stranger_reading_a_games_events_holds_no_thread(
    game: GameHandle, threads: list[threading.Thread]
) -> None:
    # The events are read on a request thread, once the token is known to be the game's.
    threads.clear()
    stranger = {"Authorization": "Bearer " + "x" * 43}
    for url, headers, status in (
        (f"{game.url}/events", stranger, 401),
        (f"{game.url}/events", {}, 401),
        ("/v1/games/" + "0" * 32 + "/events", game.host(), 404),
    ):
        assert (await game.client.get(url, headers=headers)).status_code == status
    assert threads == []
    assert (await game.client.get(f"{game.url}/events", headers=game.host())).status_code == 200
    assert threads != []


async def test_a_stranger_guessing_recovery_codes_with_keys_holds_no_thread(
    game: GameHandle, threads: list[threading.Thread]
) -> None:
    # A wrong code sent with an Idempotency-Key is refused once the key is known not to be
    # stored (a stored one would be a retry of the recovery that spent the code): that
    # read, like the code's check, runs on the event loop.
    threads.clear()
    guess = {"recovery_code": "0" * 32}
    for key in (str(uuid.uuid4()), str(uuid.uuid4()), None):
        headers = {} if key is None else {"Idempotency-Key": key}
        answer = await game.client.post(f"{game.url}/recovery", json=guess, headers=headers)
        assert answer.status_code == 401, answer.text
    assert threads == []
