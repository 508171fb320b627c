"""Faith changes: POST /v1/games/{id}/players/{player_id}/faith-changes."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import JSON_CT, Case, CaseRunner, G, big_body, case, raw, v422

PATH = f"{G}/players/p1/faith-changes"
CASES = [
    v422("faith-change-zero", "POST", PATH, ("body", "delta"), body={"delta": 0}),
    v422("faith-change-16", "POST", PATH, ("body", "delta"), body={"delta": 16}),
    v422("faith-change-minus-16", "POST", PATH, ("body", "delta"), body={"delta": -16}),
    v422("faith-change-huge", "POST", PATH, ("body", "delta"), body={"delta": 10**100}),
    v422("faith-change-float", "POST", PATH, ("body", "delta"), body={"delta": 1.0}),
    v422("faith-change-string", "POST", PATH, ("body", "delta"), body={"delta": "1"}),
    v422("faith-change-bool", "POST", PATH, ("body", "delta"), body={"delta": True}),
    v422("faith-change-null", "POST", PATH, ("body", "delta"), body={"delta": None}),
    v422("faith-change-missing", "POST", PATH, ("body", "delta"), body={}),
    v422(
        "faith-change-unknown-field",
        "POST",
        PATH,
        ("body", "faith"),
        body={"delta": 1, "faith": 3},
    ),
    v422("faith-change-array", "POST", PATH, ("body",), body=[{"delta": 1}]),
    raw("faith-change-nan", "POST", PATH, b'{"delta": NaN}', ("body", "delta")),
    raw("faith-change-truncated", "POST", PATH, b'{"delta": 1', ("body", 11)),
    case(
        "faith-change-text-plain",
        "POST",
        PATH,
        415,
        "unsupported-media-type",
        content=b'{"delta": 1}',
        headers={"content-type": "text/plain"},
    ),
    case(
        "faith-change-too-large",
        "POST",
        PATH,
        413,
        "payload-too-large",
        content=big_body(),
        headers=JSON_CT,
    ),
    case(
        "faith-change-unknown-player",
        "POST",
        f"{G}/players/p9/faith-changes",
        404,
        "not-found",
        body={"delta": 1},
    ),
    case(
        "faith-change-key-weak",
        "POST",
        PATH,
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body={"delta": 1},
        headers={"Idempotency-Key": "k" * 21},
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Faith changes: a problem, and the game exactly as it was."""
    await run_game_case(c)
