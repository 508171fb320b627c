"""The documents written as plain data, the calculations' and a game's, are exactly what
their response models would write: the same keys in the same order, nothing more, nothing
less."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic_core import to_json

from app.api.presenters import JsonPresenter, final_scores_document, gains_document
from app.api.schemas.calculations import (
    FinalScoresCalculation,
    FinalScoresResult,
    GainsCalculation,
    GainsResult,
)
from app.services.calculations import Calculations
from app.services.tile_packs import load_catalogue
from tests.domain.stored_games import played
from tests.support.play_steps import PLAY_STEPS

CATALOGUE = load_catalogue()
CALCULATIONS = Calculations(CATALOGUE)


def assert_is_a(model: type[BaseModel], document: dict[str, Any]) -> None:
    written = to_json(document)
    assert model.model_validate_json(written).model_dump_json().encode() == written


GAINS = [
    {"gains": [{"source": {"kind": "action_space"}, "resources": {"coins": 1}}]},
    {
        "excommunications": ["I-2", "II-6", "III-4"],
        "leaders": ["santa_rita"],
        "gains": [
            {"source": {"kind": "action_space", "name": "Market"}, "resources": {"coins": 5}},
            {
                "source": {"kind": "card_immediate", "name": "Woods"},
                "resources": {"wood": 2, "stone": 1},
                "privileges": [{"coins": 2}],
            },
            {
                "source": {"kind": "card_permanent"},
                "resources": {"wood": 1, "stone": 1},
                "wood_or_stone": "wood",
            },
            {"source": {"kind": "leader"}, "resources": {"servants": 2, "faith_points": 1}},
        ],
    },
]


@pytest.mark.parametrize("body", GAINS)
def test_a_gains_document_is_a_gains_result(body: dict[str, Any]) -> None:
    request = GainsCalculation.model_validate(body)
    result = CALCULATIONS.gains(
        request.excommunications, request.leaders, [g.to_domain() for g in request.gains]
    )
    assert_is_a(GainsResult, gains_document(result))


FINAL_SCORES = [
    {"players": [{"id": "a"}]},
    {
        "players": [
            {
                "id": "a",
                "excommunications": ["I-1", "II-2", "III-4"],
                "victory_points": 40,
                "military_points": 12,
                "territories": 5,
                "characters": 4,
                "venture_points": 6,
                "resources": {"coins": 7, "wood": 2, "stone": 3, "servants": 4},
                "building_costs": {"wood": 3, "stone": 4},
            },
            {"id": "b", "excommunications": ["III-1"], "victory_points": 55, "territories": 3},
            {"id": "c", "excommunications": ["I-3", "III-7"], "resources": {"coins": 11}},
            {"id": "d", "excommunications": ["III-5"], "military_points": 20, "characters": 6},
        ]
    },
]


@pytest.mark.parametrize("body", FINAL_SCORES)
def test_a_final_scores_document_is_a_final_scores_result(body: dict[str, Any]) -> None:
    request = FinalScoresCalculation.model_validate(body)
    scores = CALCULATIONS.final_scores([p.held() for p in request.players])
    assert_is_a(FinalScoresResult, final_scores_document(scores))


# A game's document is written by orjson from the domain's values (JsonPresenter.game), not
# through GameRead: every game the rules can reach must come out as GameRead writes it.
PRESENTER = JsonPresenter(CATALOGUE)
TILES_BY_PERIOD = {
    period: [tile.id for tile in CATALOGUE.select() if tile.period == period]
    for period in (1, 2, 3)
}
# Names as a client may send them: quotes, backslashes, slashes, markup, text that is not
# ASCII (a line separator, a character outside the BMP); no control characters (refused).
NAMES = st.text(
    st.characters(blacklist_categories=("Cc", "Cs")) | st.sampled_from('"\\/<>&\u2028\U0001f600'),
    min_size=1,
    max_size=12,
)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(
    plays=st.lists(PLAY_STEPS, max_size=25),
    track_rounds=st.booleans(),
    names=st.lists(NAMES, min_size=3, max_size=3),
    seed=st.one_of(st.none(), st.integers(0, 2**31 - 1)),
    players_enter_faith=st.booleans(),
    tiles=st.tuples(*(st.sampled_from(TILES_BY_PERIOD[period]) for period in (1, 2, 3))),
)
def test_a_games_document_is_what_game_read_writes_byte_for_byte(
    plays: list[tuple[Any, ...]],
    track_rounds: bool,
    names: list[str],
    seed: int | None,
    players_enter_faith: bool,
    tiles: tuple[str, str, str],
) -> None:
    table, _ = played(plays, track_rounds)
    game = replace(
        table.game,
        # Any text a name could hold: the rules' checks of names are not what is tested.
        players=tuple(replace(p, name=n) for p, n in zip(table.game.players, names, strict=True)),
        seed=seed,
        players_enter_faith=players_enter_faith,
        tile_ids=dict(zip((3, 1, 2), (tiles[2], tiles[0], tiles[1]), strict=True)),
    )
    assert PRESENTER.game(game) == PRESENTER.game_read(game).model_dump_json()
