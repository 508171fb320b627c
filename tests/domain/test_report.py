"""R-REP-3 .. R-REP-10: resolving a Vatican Report."""

from __future__ import annotations

import pytest

from app.domain.errors import DecisionsPending, InvalidInput
from app.domain.faith import faith_victory_points
from app.domain.leaders import MARTIN_LUTERO, SISTO_IV
from app.domain.report import (
    Choice,
    Outcome,
    ReportPlayer,
    ReportVictoryPoints,
    is_eligible,
    resolve_report,
)

TILE = {1: "I-2", 2: "II-6", 3: "III-4"}


def one(
    period: int,
    faith: int,
    choice: Choice | None = None,
    leaders: frozenset[str] = frozenset(),
    default_choice: Choice | None = None,
) -> Outcome:
    result = resolve_report(
        period, TILE[period], [ReportPlayer("a", faith, leaders, choice)], default_choice
    )
    (outcome,) = result.outcomes
    return outcome


def test_r_rep_3_outcomes_follow_the_turn_order_given() -> None:
    players = [
        ReportPlayer("c", 5, choice="support"),
        ReportPlayer("a", 1),
        ReportPlayer("b", 4, choice="refuse"),
    ]
    result = resolve_report(1, "I-1", players)
    assert [o.player_id for o in result.outcomes] == ["c", "a", "b"]
    assert all("R-REP-3" in o.rules for o in result.outcomes)


def test_r_rep_3_decisions_pending_lists_every_pending_player_in_turn_order() -> None:
    players = [
        ReportPlayer("d", 9),
        ReportPlayer("a", 0),
        ReportPlayer("c", 4),
        ReportPlayer("b", 5, choice="support"),
        ReportPlayer("e", 3),
    ]
    with pytest.raises(DecisionsPending) as raised:
        resolve_report(1, "I-1", players)
    assert raised.value.pending == ["d", "c", "e"]
    assert raised.value.extra["pending"] == ["d", "c", "e"]
    assert raised.value.slug == "decisions-pending"


def test_r_rep_3_a_player_listed_twice_is_invalid() -> None:
    with pytest.raises(InvalidInput) as raised:
        resolve_report(1, "I-1", [ReportPlayer("a", 1), ReportPlayer("a", 2)])
    assert raised.value.loc == ("players", 1, "id")


@pytest.mark.parametrize(("period", "faith"), [(1, 0), (1, 2), (2, 0), (2, 3)])
def test_r_rep_4_short_player_is_excommunicated_and_keeps_faith(period: int, faith: int) -> None:
    # Period III also scores the faith VP afterwards: see the R-REP-6 tests.
    outcome = one(period, faith)
    assert outcome.outcome == "excommunicated"
    assert outcome.excommunicated is True
    assert outcome.tile_id == TILE[period]
    assert outcome.faith_after == faith
    assert outcome.victory_points.total == 0
    assert "R-REP-4" in outcome.rules


@pytest.mark.parametrize(("period", "threshold"), [(1, 3), (2, 4), (3, 5)])
def test_r_rep_4_threshold_is_the_line_between_short_and_eligible(
    period: int, threshold: int
) -> None:
    assert not is_eligible(period, threshold - 1)
    assert is_eligible(period, threshold)
    assert is_eligible(period, 15)
    assert is_eligible(period, 40)  # counts as 15


@pytest.mark.parametrize(("period", "faith"), [(1, 3), (1, 15), (2, 4), (2, 10), (3, 5), (3, 15)])
def test_r_rep_5_supporting_pays_the_table_and_resets_faith(period: int, faith: int) -> None:
    outcome = one(period, faith, "support")
    assert outcome.outcome == "supported"
    assert outcome.excommunicated is False
    assert outcome.tile_id is None
    assert outcome.faith_before == faith
    assert outcome.faith_after == 0
    assert outcome.victory_points.faith == faith_victory_points(faith)
    assert outcome.victory_points.sisto_iv == 0


@pytest.mark.parametrize(("period", "faith"), [(1, 3), (1, 9), (2, 4), (2, 12)])
def test_r_rep_5_refusing_keeps_faith_and_excommunicates(period: int, faith: int) -> None:
    outcome = one(period, faith, "refuse")
    assert outcome.outcome == "excommunicated"
    assert outcome.excommunicated is True
    assert outcome.tile_id == TILE[period]
    assert outcome.faith_after == faith
    assert outcome.victory_points.total == 0
    assert "R-REP-5" in outcome.rules


@pytest.mark.parametrize("choice", ["support", "refuse"])
def test_r_rep_5_short_player_choice_is_ignored_with_a_note(choice: Choice) -> None:
    outcome = one(1, 2, choice)
    assert outcome.outcome == "excommunicated"
    assert outcome.faith_after == 2
    assert outcome.victory_points.total == 0
    assert any("ignored" in note for note in outcome.notes)


@pytest.mark.parametrize(
    ("default", "expected"), [("support", "supported"), ("refuse", "excommunicated")]
)
def test_r_rep_5_default_choice_stands_in_for_a_player_who_has_not_chosen(
    default: Choice, expected: str
) -> None:
    players = [ReportPlayer("a", 6), ReportPlayer("b", 6, choice="support"), ReportPlayer("c", 1)]
    result = resolve_report(1, "I-3", players, default_choice=default)
    assert [o.outcome for o in result.outcomes] == [expected, "supported", "excommunicated"]
    assert any("default choice" in note for note in result.outcomes[0].notes)


def test_r_rep_5_own_choice_wins_over_the_default() -> None:
    outcome = one(2, 8, "refuse", default_choice="support")
    assert outcome.outcome == "excommunicated"
    assert outcome.notes == ()


@pytest.mark.parametrize(("faith", "vp"), [(0, 0), (1, 1), (3, 3), (4, 4)])
def test_r_rep_6_last_report_short_player_scores_faith_then_disc_zero(faith: int, vp: int) -> None:
    outcome = one(3, faith)
    assert outcome.outcome == "excommunicated"
    assert outcome.excommunicated is True
    assert outcome.tile_id == "III-4"
    assert outcome.victory_points.faith == vp
    assert outcome.faith_after == 0
    assert "R-REP-6" in outcome.rules


def test_r_rep_6_last_report_short_player_gets_no_sisto_bonus() -> None:
    outcome = one(3, 4, leaders=frozenset({SISTO_IV}))
    assert outcome.victory_points.faith == 4
    assert outcome.victory_points.sisto_iv == 0
    assert outcome.victory_points.total == 4


def test_r_rep_6_last_report_refusal_is_treated_as_short() -> None:
    outcome = one(3, 9, "refuse", leaders=frozenset({SISTO_IV}))
    assert outcome.outcome == "excommunicated"
    assert outcome.tile_id == "III-4"
    assert outcome.victory_points.faith == 13
    assert outcome.victory_points.sisto_iv == 0
    assert outcome.faith_after == 0


def test_r_rep_6_last_report_needs_no_decision_and_unchosen_supports() -> None:
    players = [
        ReportPlayer("a", 7),
        ReportPlayer("b", 2),
        ReportPlayer("c", 5, frozenset({SISTO_IV})),
    ]
    result = resolve_report(3, "III-1", players)
    a, b, c = result.outcomes
    assert (a.outcome, a.victory_points.total, a.faith_after) == ("supported", 9, 0)
    assert (b.outcome, b.victory_points.total, b.faith_after) == ("excommunicated", 2, 0)
    assert (c.outcome, c.victory_points.faith, c.victory_points.sisto_iv) == ("supported", 5, 5)


def test_r_rep_6_default_refuse_does_not_apply_to_the_last_report() -> None:
    # Refusing the last report can only cost the player: an unchosen eligible player supports.
    outcome = one(3, 7, default_choice="refuse", leaders=frozenset({SISTO_IV}))
    assert outcome.outcome == "supported"
    assert outcome.excommunicated is False
    assert outcome.victory_points.total == 9 + 5
    assert "R-REP-6" in outcome.rules


@pytest.mark.parametrize("period", [1, 2, 3])
def test_r_rep_7_earlier_excommunication_never_stops_supporting(period: int) -> None:
    # The report sees only this period's faith: no history is an input.
    outcome = one(period, 10, "support")
    assert outcome.outcome == "supported"


def test_r_rep_7_each_player_is_judged_at_most_once_per_report() -> None:
    with pytest.raises(InvalidInput):
        resolve_report(2, "II-1", [ReportPlayer("a", 0), ReportPlayer("a", 0)])


@pytest.mark.parametrize(("period", "faith"), [(1, 3), (2, 9), (3, 15)])
def test_r_rep_8_sisto_iv_adds_five_when_supporting(period: int, faith: int) -> None:
    outcome = one(period, faith, "support", leaders=frozenset({SISTO_IV}))
    assert outcome.victory_points.sisto_iv == 5
    assert outcome.victory_points.total == faith_victory_points(faith) + 5
    assert "R-REP-8" in outcome.rules


@pytest.mark.parametrize(("period", "faith", "choice"), [(1, 5, "refuse"), (2, 1, None)])
def test_r_rep_8_sisto_iv_pays_nothing_without_support(
    period: int, faith: int, choice: Choice | None
) -> None:
    outcome = one(period, faith, choice, leaders=frozenset({SISTO_IV}))
    assert outcome.victory_points.total == 0


@pytest.mark.parametrize("period", [1, 2])
def test_r_rep_9_martin_lutero_short_is_spared(period: int) -> None:
    outcome = one(period, 1, leaders=frozenset({MARTIN_LUTERO}))
    assert outcome.outcome == "spared"
    assert outcome.excommunicated is False
    assert outcome.tile_id is None
    assert outcome.faith_after == 1
    assert outcome.victory_points.total == 0
    assert "R-REP-9" in outcome.rules


def test_r_rep_9_martin_lutero_refusing_keeps_faith_without_penalty() -> None:
    outcome = one(2, 8, "refuse", leaders=frozenset({MARTIN_LUTERO}))
    assert outcome.outcome == "refused"
    assert outcome.excommunicated is False
    assert outcome.tile_id is None
    assert outcome.faith_after == 8


@pytest.mark.parametrize(
    ("faith", "choice", "kind", "vp"), [(2, None, "spared", 2), (11, "refuse", "refused", 17)]
)
def test_r_rep_9_martin_lutero_in_period_three_scores_faith_vp(
    faith: int, choice: Choice | None, kind: str, vp: int
) -> None:
    outcome = one(3, faith, choice, leaders=frozenset({MARTIN_LUTERO}))
    assert outcome.outcome == kind
    assert outcome.excommunicated is False
    assert outcome.tile_id is None
    assert outcome.victory_points.faith == vp
    assert outcome.faith_after == 0


def test_r_rep_9_martin_lutero_may_still_support() -> None:
    outcome = one(1, 4, "support", leaders=frozenset({MARTIN_LUTERO, SISTO_IV}))
    assert (outcome.outcome, outcome.victory_points.total) == ("supported", 4 + 5)


def test_r_rep_10_outcome_reports_every_field() -> None:
    result = resolve_report(
        2,
        "II-7",
        [
            ReportPlayer("a", 6, frozenset({SISTO_IV}), "support"),
            ReportPlayer("b", 3),
        ],
    )
    assert result.period == 2
    assert result.threshold == 4
    a, b = result.outcomes
    assert a == Outcome(
        player_id="a",
        faith_before=6,
        faith_after=0,
        threshold=4,
        outcome="supported",
        excommunicated=False,
        tile_id=None,
        victory_points=ReportVictoryPoints(faith=7, sisto_iv=5, total=12),
        rules=a.rules,
        notes=(),
    )
    assert a.victory_points.total == 12
    assert {"R-REP-5", "R-FT-1", "R-REP-8"} <= set(a.rules)
    assert (b.faith_before, b.faith_after, b.outcome, b.tile_id) == (3, 3, "excommunicated", "II-7")
    assert b.victory_points.total == 0
