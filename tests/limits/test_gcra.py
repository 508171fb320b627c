"""The generic cell rate algorithm, as pure arithmetic (no clock, no database)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.services.client_limits import Rate

T0 = 1_000_000_000_000


def _admitted_at_once(rate: Rate, requests: int) -> int:
    tat, admitted = 0, 0
    for _ in range(requests):
        nxt = rate.admit(tat, T0)
        if nxt is not None:
            tat, admitted = nxt, admitted + 1
    return admitted


@pytest.mark.parametrize("burst", [1, 2, 30])
def test_a_burst_is_admitted_at_once_and_no_more(burst: int) -> None:
    assert _admitted_at_once(Rate(6, burst), burst + 5) == burst


def test_one_interval_after_the_burst_one_more_is_admitted() -> None:
    rate = Rate(60, 2)  # one a second
    tat = rate.admit(0, T0)
    assert tat is not None
    tat = rate.admit(tat, T0)
    assert tat is not None
    assert rate.admit(tat, T0) is None
    assert rate.retry_after(tat, T0) == 1
    assert rate.admit(tat, T0 + 999) is None
    assert rate.admit(tat, T0 + 1000) is not None


def test_retry_after_is_whole_seconds_rounded_up() -> None:
    rate = Rate(6, 1)  # one every 10 s
    tat = rate.admit(0, T0)
    assert tat == T0 + 10_000
    assert rate.retry_after(tat, T0 + 2500) == 8


def test_a_rate_of_zero_is_off() -> None:
    assert not Rate(0, 1).on
    assert Rate(0.5, 1).on


@given(
    per_minute=st.floats(min_value=0.01, max_value=6000),
    burst=st.integers(min_value=1, max_value=100),
    gaps=st.lists(st.integers(min_value=0, max_value=120_000), max_size=200),
)
def test_never_more_than_burst_plus_rate_times_time(
    per_minute: float, burst: int, gaps: list[int]
) -> None:
    """Over any run of requests, admitted <= burst + elapsed / interval."""
    rate = Rate(per_minute, burst)
    tat, now, admitted = 0, T0, 0
    for gap in gaps:
        now += gap
        nxt = rate.admit(tat, now)
        if nxt is not None:
            tat, admitted = nxt, admitted + 1
        else:
            assert rate.retry_after(tat, now) >= 1
    assert admitted <= burst + (now - T0) // rate.interval_ms
