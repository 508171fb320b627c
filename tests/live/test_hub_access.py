"""The hub ends the followers whose access ended, in process: those that follow with a
seat's token replaced after the version they were checked at, and every follower of a
deleted game; the others keep following."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import FastAPI

from app.persistence.changes import GONE
from app.persistence.repositories import LoggedEvent
from app.services.live import LiveHub
from tests.api.conftest import GameHandle

AT = datetime(2026, 3, 1, 20, 15, tzinfo=UTC)


def _seat_changed(seq: int, seat: str) -> LoggedEvent:
    return LoggedEvent(seq, "seat_token_changed", AT, {"seat": seat, "change": "reissued"})


async def test_a_token_change_ends_the_followers_of_that_seat_checked_before_it(
    live_app: FastAPI, live_game: GameHandle
) -> None:
    hub: LiveHub = live_app.state.live_hub
    lent = hub.subscribe(live_game.id, 1, "p2")
    host = hub.subscribe(live_game.id, 1, "host")
    long_poll = hub.subscribe(live_game.id, 1)  # no seat: its next read checks the token
    hub._heard(live_game.id, 2, _seat_changed(2, "p2"))
    assert (lent.ended, host.ended, long_poll.ended) == ("token", None, None)
    # Checked before the change, subscribed after it: ended at once. Checked after it: kept.
    assert hub.subscribe(live_game.id, 1, "p2").ended == "token"
    assert hub.subscribe(live_game.id, 2, "p2").ended is None
    hub._heard(live_game.id, 3, _seat_changed(3, "host"))
    assert host.ended == "token"


async def test_a_deleted_game_ends_every_follower_of_it(
    live_app: FastAPI, live_game: GameHandle
) -> None:
    hub: LiveHub = live_app.state.live_hub
    followers = [hub.subscribe(live_game.id, 1, seat) for seat in ("host", "p1", None)]
    other = hub.subscribe("f" * 32, 1, "host")
    hub._heard(live_game.id, GONE)
    assert [f.ended for f in followers] == ["gone"] * 3
    assert other.ended is None
