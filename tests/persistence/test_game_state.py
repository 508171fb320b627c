"""A game's stored state (app/persistence/game_state.py): what any game the rules can reach
is stored as reads back as the same game, and its reports' decisions and outcomes and its
round are stored as ``dataclasses.asdict`` writes them (the form report.py documents, and
the one migration 0005 wrote)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.persistence.game_state import game_state, state_data
from app.persistence.json_columns import json_text
from tests.domain.stored_games import played
from tests.support.play_steps import PLAY_STEPS


def _through_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(plays=st.lists(PLAY_STEPS, max_size=30), track_rounds=st.booleans())
def test_a_stored_state_reads_back_as_its_game_and_keeps_its_stored_form(
    plays: list[tuple[Any, ...]], track_rounds: bool
) -> None:
    game = played(plays, track_rounds)[0].game
    stored = json.loads(json_text(state_data(game)))
    assert game_state(game.id, game.version, stored) == game
    for report, data in zip(game.reports, stored["reports"], strict=True):
        assert data["decisions"] == _through_json([asdict(d) for d in report.decisions])
        outcomes = None if report.outcomes is None else [asdict(o) for o in report.outcomes]
        assert data["outcomes"] == _through_json(outcomes)
    assert stored["round"] == (None if game.round is None else asdict(game.round))
