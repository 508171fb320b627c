"""The calculations' documents, written as plain data, are exactly what their response
models would write: the same keys in the same order, nothing more, nothing less."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_core import to_json

from app.api.presenters import final_scores_document, gains_document
from app.api.schemas.calculations import (
    FinalScoresCalculation,
    FinalScoresResult,
    GainsCalculation,
    GainsResult,
)
from app.services.calculations import Calculations
from app.services.tile_packs import load_catalogue

CALCULATIONS = Calculations(load_catalogue())


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
