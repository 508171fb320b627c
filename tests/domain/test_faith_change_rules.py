"""R-FT-3: a Faith change adds to the faith the player has, capped at 15 and floored at 0."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain import game as rules
from app.domain.errors import InvalidInput, NotFound
from app.domain.faith import MAX_FAITH, CappedFaith, add_faith
from tests.domain.stored_games import Table


@pytest.mark.parametrize(
    ("faith", "delta", "to", "lost"),
    [(0, 1, 1, 0), (4, 3, 7, 0), (14, 3, 15, 2), (5, -2, 3, 0), (2, -5, 0, 0)],
)
def test_r_ft_3_a_change_adds_to_the_current_faith(
    faith: int, delta: int, to: int, lost: int
) -> None:
    table = Table()
    table.play(rules.set_faith, {"p1": faith})
    event = table.logged(rules.change_faith, "p1", delta)
    assert event.type == "faith_changed"
    assert event.data == {"player_id": "p1", "delta": delta, "from": faith, "to": to, "lost": lost}
    assert table.game.player("p1").faith == to
    assert add_faith(faith, delta) == CappedFaith(to, lost)
    assert table.replayed() == table.game


@pytest.mark.parametrize(("faith", "delta", "lost"), [(15, 1, 1), (15, 4, 4), (0, -1, 0)])
def test_r_ft_3_a_change_that_leaves_the_faith_logs_nothing(
    faith: int, delta: int, lost: int
) -> None:
    """A gain at 15 is all lost, a removal at 0 is dropped: the game stays as it is."""
    table = Table()
    table.play(rules.set_faith, {"p1": faith})
    before = table.game
    assert table.play(rules.change_faith, "p1", delta) is None
    assert table.game == before
    assert add_faith(faith, delta) == CappedFaith(faith, lost)


def test_r_ft_3_a_removal_below_0_stops_at_0_and_drops_the_rest() -> None:
    table = Table()
    table.play(rules.set_faith, {"p2": 2})
    event = table.logged(rules.change_faith, "p2", -5)
    assert (event.data["to"], event.data["to"] - event.data["from"]) == (0, -2)


@pytest.mark.parametrize("delta", [0, 16, -16])
def test_r_ft_3_a_change_of_0_or_beyond_the_track_is_refused(delta: int) -> None:
    with pytest.raises(InvalidInput) as refused:
        rules.change_faith(Table().game, "p1", delta)
    assert refused.value.loc == ("delta",)


def test_r_ft_3_an_unknown_player_is_not_found() -> None:
    with pytest.raises(NotFound):
        rules.change_faith(Table().game, "p9", 1)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(deltas=st.lists(st.integers(-MAX_FAITH, MAX_FAITH).filter(bool), max_size=40))
def test_r_ft_3_changes_one_after_another_sum_with_the_cap_and_floor(deltas: list[int]) -> None:
    table = Table()
    expected = 0
    for delta in deltas:
        event = table.play(rules.change_faith, "p1", delta)
        raw = max(expected + delta, 0)
        if event is not None:
            assert event.data["lost"] == max(raw - MAX_FAITH, 0)
        assert (event is None) == (min(raw, MAX_FAITH) == expected)
        expected = min(raw, MAX_FAITH)
    assert table.game.player("p1").faith == expected
