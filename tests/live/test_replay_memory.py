"""A thousand replays of a long log that are never read, against a real ``python -m app``
(one worker, the defaults but the write rate and one seat's bound, on SQLite): the
worker's memory stays bounded, and every other game's reads and changes are answered
meanwhile. How long they take is a figure of bench/ATTACKS.md (``stream-replays``), not a
test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.servers import Server, running
from tests.support.stream_replays import replay_flood

RSS_BOUND_MIB = 150


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder: Path = tmp_path_factory.mktemp("replays")
    # One token stands for the thousand seats (over as many games) an attacker would need
    # to hold a thousand replays at once: one seat alone holds MAX_STREAMS_PER_SEAT.
    env = {"MAX_STREAMS_PER_SEAT": "1000"}
    with running(Server(f"sqlite:///{folder}/replays.db", folder, "replays", env=env)) as (one,):
        yield one


def test_a_thousand_unread_replays_of_a_thousand_events_keep_the_worker_small(
    server: Server,
) -> None:
    assert server.proc is not None
    figures = replay_flood(server.port, server.proc.pid, streams=1000, events=1000)
    print(figures)  # the RSS after the streams closed, for the record (-s)
    assert figures["stream_answers"] == {"200": 1000}
    assert figures["rss_peak_mib"] < RSS_BOUND_MIB, figures
    assert set(figures["other_reads"]["statuses"]) == {"200"}, figures
    assert set(figures["other_writes"]["statuses"]) == {"200"}, figures
