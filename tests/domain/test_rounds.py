"""R-RND-1 .. R-RND-4: the rounds of a game created with ``track_rounds``."""

from __future__ import annotations

import pytest

from app.domain import game as rules
from app.domain.errors import (
    LastRound,
    NotInReportPhase,
    ReportStillOpen,
    RoundsNotTracked,
)
from app.domain.rounds import RoundState
from tests.domain.stored_games import Table


def _advance(table: Table, times: int = 1) -> None:
    for _ in range(times):
        table.play(rules.advance_round)


def test_r_rnd_1_six_rounds_with_a_report_phase_after_rounds_2_4_and_6() -> None:
    table = Table(track_rounds=True)
    seen = [table.game.round]
    while True:
        current = table.game.round
        assert current is not None
        if current.phase == "report":
            period = {2: 1, 4: 2, 6: 3}[current.number]
            table.play(rules.resolve, period, "support")
        try:
            table.play(rules.advance_round)
        except LastRound:
            break
        seen.append(table.game.round)
    assert seen == [
        RoundState(1),
        RoundState(2),
        RoundState(2, "report"),
        RoundState(3),
        RoundState(4),
        RoundState(4, "report"),
        RoundState(5),
        RoundState(6),
        RoundState(6, "report"),
    ]
    assert all(r.status == "resolved" for r in table.game.reports)
    assert table.replayed() == table.game


def test_r_rnd_1_a_game_without_track_rounds_has_no_round_to_advance() -> None:
    table = Table()
    assert table.game.round is None
    with pytest.raises(RoundsNotTracked):
        table.play(rules.advance_round)
    # ... and resolves its reports whenever the table says, as before rounds existed.
    table.play(rules.resolve, 1, "support")


def test_r_rnd_1_the_event_says_where_the_round_went_from() -> None:
    table = Table(track_rounds=True)
    event = table.logged(rules.advance_round)
    assert event.type == "round_advanced"
    assert event.data == {
        "from": {"number": 1, "phase": "play"},
        "to": {"number": 2, "phase": "play"},
    }


@pytest.mark.parametrize("rounds", [0, 1])
def test_r_rnd_2_a_report_does_not_resolve_before_its_report_phase(rounds: int) -> None:
    table = Table(track_rounds=True)
    _advance(table, rounds)
    with pytest.raises(NotInReportPhase) as refused:
        table.play(rules.resolve, 1, "support")
    assert "round 2" in refused.value.detail
    _advance(table, 2 - rounds)  # round 2, its report phase
    table.play(rules.resolve, 1, "support")
    assert table.game.report(1).status == "resolved"


def test_r_rnd_2_decisions_may_come_before_the_report_phase() -> None:
    table = Table(track_rounds=True)
    table.play(rules.set_faith, {"p1": 4})
    table.play(rules.set_decision, 1, "p1", "refuse")
    assert table.game.report(1).choice_of("p1") == "refuse"


def test_r_rnd_3_the_round_cannot_move_past_an_open_report() -> None:
    table = Table(track_rounds=True)
    _advance(table, 2)
    assert table.game.round == RoundState(2, "report")
    with pytest.raises(ReportStillOpen):
        table.play(rules.advance_round)
    assert table.game.round == RoundState(2, "report")
    table.play(rules.resolve, 1, "refuse")
    _advance(table)
    assert table.game.round == RoundState(3)


def test_r_rnd_4_round_6_is_the_last() -> None:
    table = Table(track_rounds=True)
    for period in (1, 2):
        _advance(table, 2)
        table.play(rules.resolve, period, "support")
        _advance(table)
    _advance(table, 2)
    assert table.game.round == RoundState(6, "report")
    with pytest.raises(ReportStillOpen):
        table.play(rules.advance_round)
    table.play(rules.resolve, 3, None)
    with pytest.raises(LastRound):
        table.play(rules.advance_round)
