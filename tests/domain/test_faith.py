"""R-FT-1, R-FT-2, R-REP-1, R-REP-2: the Faith track and the periods."""

from __future__ import annotations

import pytest

from app.domain.errors import InvalidInput, ReportOutOfOrder, ReportResolved
from app.domain.faith import (
    FAITH_VICTORY_POINTS,
    MAX_FAITH,
    PERIODS,
    cap_faith,
    faith_victory_points,
    period_info,
)
from app.domain.report import ReportPlayer, resolve_report

FAITH_TABLE = [
    (0, 0),
    (1, 1),
    (2, 2),
    (3, 3),
    (4, 4),
    (5, 5),
    (6, 7),
    (7, 9),
    (8, 11),
    (9, 13),
    (10, 15),
    (11, 17),
    (12, 19),
    (13, 22),
    (14, 25),
    (15, 30),
]


@pytest.mark.parametrize(("faith", "vp"), FAITH_TABLE)
def test_r_ft_1_faith_victory_points_at_every_step(faith: int, vp: int) -> None:
    assert faith_victory_points(faith) == vp
    assert FAITH_VICTORY_POINTS[faith] == vp


def test_r_ft_1_track_has_sixteen_steps_up_to_fifteen() -> None:
    assert MAX_FAITH == 15
    assert len(FAITH_VICTORY_POINTS) == 16


@pytest.mark.parametrize(
    ("value", "kept", "lost"),
    [(0, 0, 0), (7, 7, 0), (15, 15, 0), (16, 15, 1), (20, 15, 5), (100, 15, 85)],
)
def test_r_ft_2_faith_beyond_fifteen_is_lost(value: int, kept: int, lost: int) -> None:
    capped = cap_faith(value)
    assert (capped.faith, capped.lost) == (kept, lost)


def test_r_ft_2_faith_above_fifteen_pays_as_fifteen() -> None:
    assert faith_victory_points(16) == 30
    assert faith_victory_points(99) == 30


def test_r_ft_2_negative_faith_is_invalid() -> None:
    with pytest.raises(ValueError):
        cap_faith(-1)
    with pytest.raises(InvalidInput) as raised:
        resolve_report(1, "I-1", [ReportPlayer("a", faith=-1)])
    assert raised.value.loc == ("players", 0, "faith")


def test_r_ft_2_report_counts_faith_above_fifteen_as_fifteen() -> None:
    (outcome,) = resolve_report(1, "I-1", [ReportPlayer("a", 18, choice="support")]).outcomes
    assert outcome.faith_before == 15
    assert outcome.victory_points.faith == 30
    assert "R-FT-2" in outcome.rules
    assert any("beyond 15 is lost" in note for note in outcome.notes)


@pytest.mark.parametrize(("period", "report_round", "threshold"), [(1, 2, 3), (2, 4, 4), (3, 6, 5)])
def test_r_rep_1_reports_close_rounds_2_4_6_with_thresholds_3_4_5(
    period: int, report_round: int, threshold: int
) -> None:
    info = period_info(period)
    assert (info.report_round, info.threshold) == (report_round, threshold)


def test_r_rep_1_three_periods_of_two_rounds() -> None:
    assert [p.number for p in PERIODS] == [1, 2, 3]
    assert [p.report_round for p in PERIODS] == [2, 4, 6]
    with pytest.raises(KeyError):
        period_info(4)


@pytest.mark.parametrize("period", [0, 4, -1])
def test_r_rep_1_report_for_an_unknown_period_is_invalid(period: int) -> None:
    with pytest.raises(InvalidInput) as raised:
        resolve_report(period, None, [])
    assert raised.value.loc == ("period",)


def test_r_rep_2_periods_are_listed_in_report_order() -> None:
    # The service resolves reports in this order; the domain gives it.
    rounds = [p.report_round for p in PERIODS]
    assert rounds == sorted(rounds)
    assert len({p.number for p in PERIODS}) == len(PERIODS)


def test_r_rep_2_order_and_once_errors_carry_their_slugs() -> None:
    assert ReportOutOfOrder("period I is still open").slug == "report-out-of-order"
    assert ReportResolved("period I is resolved").slug == "report-resolved"
