"""Streams hold a connection each: they may take at most four fifths of MAX_CONNECTIONS,
so that ordinary requests always keep a share of the connections."""

from __future__ import annotations

from app.main import create_app
from app.settings import Settings


def test_streams_take_at_most_four_fifths_of_the_connections(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'limits.db'}"
    capped = Settings(database_url=url, max_streams=1000, max_connections=100)
    assert capped.stream_slots == 80
    assert create_app(capped).state.live_hub.max_subscribers == 80

    roomy = Settings(database_url=url, max_streams=30, max_connections=100)
    assert create_app(roomy).state.live_hub.max_subscribers == 30


def test_the_defaults_leave_room_for_requests_beside_every_stream() -> None:
    defaults = Settings()
    assert defaults.stream_slots == defaults.max_streams
    assert defaults.max_connections - defaults.max_streams >= defaults.max_connections // 5
