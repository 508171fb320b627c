"""The request rate of one client address (addresses.Pace): a request past it
waits its turn; no sequence of requests gets more started than the rate allows; the table
of due times stays bounded however many addresses come and go."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.server.addresses import AddressCounts, _cached_forwarded_client, forwarded_client
from app.server.edge_limits import EdgeLimits

INTERVAL = 0.1  # 600 a minute
BURST = 5
TOLERANCE = INTERVAL * (BURST - 1)


def test_a_burst_starts_at_once_and_the_next_request_waits_one_interval() -> None:
    counts = AddressCounts()
    delays = [counts.pace("a", INTERVAL, TOLERANCE).start_delay(100.0) for _ in range(BURST + 2)]
    assert delays[:BURST] == [0.0] * BURST
    assert delays[BURST] == _about(INTERVAL)
    assert delays[BURST + 1] == _about(2 * INTERVAL)


def test_another_address_has_a_budget_of_its_own() -> None:
    counts = AddressCounts()
    for _ in range(3 * BURST):
        counts.pace("a", INTERVAL, TOLERANCE).start_delay(100.0)
    assert counts.pace("b", INTERVAL, TOLERANCE).start_delay(100.0) == 0.0


def test_an_address_that_waited_its_rate_out_has_its_burst_again() -> None:
    counts = AddressCounts()
    for _ in range(2 * BURST):
        counts.pace("a", INTERVAL, TOLERANCE).start_delay(100.0)
    later = 100.0 + 2 * BURST * INTERVAL
    assert [counts.pace("a", INTERVAL, TOLERANCE).start_delay(later) for _ in range(BURST)] == [
        0.0
    ] * BURST


def test_closing_its_connections_earns_an_address_no_new_burst() -> None:
    counts = AddressCounts()
    counts.opened("a")
    for _ in range(BURST):
        counts.pace("a", INTERVAL, TOLERANCE).start_delay(100.0)
    counts.closed("a")
    counts.opened("a")
    assert counts.pace("a", INTERVAL, TOLERANCE).start_delay(100.0) == _about(INTERVAL)


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.floats(min_value=0.0, max_value=0.3), min_size=1, max_size=200),
    burst=st.integers(min_value=1, max_value=10),
)
def test_no_sequence_of_requests_starts_more_than_the_burst_and_the_rate(
    gaps: list[float], burst: int
) -> None:
    """Whenever they arrive, the requests started by any time t from the first are at
    most the burst plus t's worth of the rate; and each starts no earlier than it came."""
    counts = AddressCounts()
    pace = counts.pace("a", INTERVAL, INTERVAL * (burst - 1))
    arrivals = list(itertools.accumulate(gaps, initial=1000.0))
    starts = []
    for arrival in arrivals:
        delay = pace.start_delay(arrival)
        assert delay >= 0.0
        starts.append(arrival + delay)
    _assert_within_the_burst_and_the_rate(starts, burst)


def _assert_within_the_burst_and_the_rate(starts: list[float], burst: int) -> None:
    """By any start, at most the burst plus the rate's worth of the time since the first
    have started."""
    first = starts[0]
    for end in starts:
        started = sum(1 for start in starts if start <= end + 1e-9)
        assert started <= burst + (end - first) / INTERVAL + 1e-6


def test_the_due_times_of_addresses_gone_are_swept() -> None:
    """A thousand addresses each send a request and leave; as many more later: the table
    keeps only what still delays someone, never more than twice that plus its slack."""
    counts = AddressCounts()
    now = 100.0
    for wave in range(10):
        for number in range(1000):
            key = f"10.{wave}.{number // 256}.{number % 256}"
            counts.opened(key)
            counts.pace(key, INTERVAL, TOLERANCE).start_delay(now)
            counts.closed(key)
        now += 1.0
        assert len(counts.due_times) <= 2 * 1000 + 256


def test_the_settings_give_the_interval_and_the_tolerance() -> None:
    limits = EdgeLimits.defaults()
    assert limits.request_interval == 60.0 / limits.request_rate_per_address
    assert limits.request_tolerance == limits.request_interval * (
        limits.request_burst_per_address - 1
    )
    off = dataclasses.replace(limits, request_rate_per_address=0.0)
    assert off.request_interval == 0.0


def _about(value: float) -> object:
    return pytest.approx(value, abs=1e-9)


# A client behind a trusted proxy: refused past the rate, never held (AddressCounts.admit).


def test_a_forwarded_client_past_its_burst_is_refused_and_not_counted() -> None:
    counts = AddressCounts()
    waits = [counts.admit("c", 10.0, INTERVAL, TOLERANCE) for _ in range(BURST + 2)]
    assert waits[:BURST] == [0.0] * BURST
    # The next would start one interval on; refused, it uses up nothing of the rate.
    assert waits[BURST:] == [_about(INTERVAL), _about(INTERVAL)]
    assert counts.admit("c", 10.0 + INTERVAL, INTERVAL, TOLERANCE) == 0.0
    assert counts.admit("c", 10.0 + INTERVAL, INTERVAL, TOLERANCE) == _about(INTERVAL)
    assert counts.admit("other", 10.0 + INTERVAL, INTERVAL, TOLERANCE) == 0.0


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.floats(min_value=0.0, max_value=0.5), min_size=1, max_size=80),
    burst=st.integers(min_value=1, max_value=10),
)
def test_no_sequence_of_forwarded_requests_admits_more_than_the_burst_and_the_rate(
    gaps: list[float], burst: int
) -> None:
    """Whenever they arrive, the requests admitted by any time t from the first are at
    most the burst plus t's worth of the rate; a refused one is told a wait after which
    it would be admitted."""
    counts = AddressCounts()
    tolerance = INTERVAL * (burst - 1)
    admitted = []
    for arrival in itertools.accumulate(gaps, initial=1000.0):
        wait = counts.admit("c", arrival, INTERVAL, tolerance)
        assert wait >= 0.0
        if wait == 0.0:
            admitted.append(arrival)
        else:
            probe = AddressCounts()
            probe.due_times = dict(counts.due_times)
            assert probe.admit("c", arrival + wait + 1e-9, INTERVAL, tolerance) == 0.0
    _assert_within_the_burst_and_the_rate(admitted, burst)


@pytest.mark.parametrize(
    ("forwarded", "client"),
    [
        (("203.0.113.7",), "203.0.113.7"),
        # What a client writes into the header itself is left of what the proxy appended.
        (("198.51.100.1, 203.0.113.7",), "203.0.113.7"),
        (("198.51.100.1", "203.0.113.7"), "203.0.113.7"),
        # Another trusted proxy on the way is skipped.
        (("203.0.113.7, 10.0.0.9",), "203.0.113.7"),
        # An IPv6 client counts by its /64.
        (("2001:db8:1:2::99",), "2001:db8:1:2::/64"),
        # The proxy's own requests (no header, or only trusted hops) are not paced.
        ((), None),
        (("10.0.0.9",), None),
    ],
)
def test_a_forwarded_request_counts_against_the_client_its_proxy_names(
    forwarded: tuple[str, ...], client: str | None
) -> None:
    assert forwarded_client("10.0.0.4", forwarded, ("10.0.0.0/24",)) == client


def test_a_long_forwarded_header_is_read_but_not_cached() -> None:
    """A client can make the part of the header it writes itself different on every
    request: a long header is not kept, so such requests cannot fill the cache."""
    junk = ", ".join(f"198.51.{n // 256}.{n % 256}" for n in range(40))
    before = _cached_forwarded_client.cache_info().currsize
    for number in range(50):
        forwarded = (f"{junk}, 192.0.2.{number}, 203.0.113.7",)
        assert forwarded_client("10.0.0.4", forwarded, ("10.0.0.0/24",)) == "203.0.113.7"
    assert _cached_forwarded_client.cache_info().currsize == before
