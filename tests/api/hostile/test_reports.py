"""Vatican Reports of a stored game: GET .../reports/{period}, PUT .../decisions/{player_id},
POST .../resolution (its Idempotency-Key: test_idempotency_keys.py)."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import JSON_CT, Case, CaseRunner, G, big_body, case, raw, v422

CASES = [
    # the period in the path
    v422("report-period-0", "GET", f"{G}/reports/0", ("path", "period")),
    v422("report-period-4", "GET", f"{G}/reports/4", ("path", "period")),
    v422("report-period-x", "GET", f"{G}/reports/x", ("path", "period")),
    v422("report-period-float", "GET", f"{G}/reports/1.0", ("path", "period")),
    v422("report-period-huge", "GET", f"{G}/reports/{10**30}", ("path", "period")),
    v422(
        "decision-period-4",
        "PUT",
        f"{G}/reports/4/decisions/p1",
        ("path", "period"),
        body={"choice": "support"},
    ),
    v422("resolution-period-0", "POST", f"{G}/reports/0/resolution", ("path", "period"), body={}),
    v422("resolution-period-x", "POST", f"{G}/reports/x/resolution", ("path", "period"), body={}),
    # PUT /v1/games/{id}/reports/{period}/decisions/{player_id}
    v422(
        "decision-choice-unknown",
        "PUT",
        f"{G}/reports/1/decisions/p1",
        ("body", "choice"),
        body={"choice": "abstain"},
        setup="faith",
    ),
    v422(
        "decision-choice-upper",
        "PUT",
        f"{G}/reports/1/decisions/p1",
        ("body", "choice"),
        body={"choice": "SUPPORT"},
        setup="faith",
    ),
    v422(
        "decision-choice-null",
        "PUT",
        f"{G}/reports/1/decisions/p1",
        ("body", "choice"),
        body={"choice": None},
        setup="faith",
    ),
    v422(
        "decision-choice-bool",
        "PUT",
        f"{G}/reports/1/decisions/p1",
        ("body", "choice"),
        body={"choice": True},
        setup="faith",
    ),
    v422(
        "decision-choice-missing",
        "PUT",
        f"{G}/reports/1/decisions/p1",
        ("body", "choice"),
        body={},
        setup="faith",
    ),
    v422(
        "decision-unknown-field",
        "PUT",
        f"{G}/reports/1/decisions/p1",
        ("body", "player_id"),
        body={"choice": "support", "player_id": "p2"},
        setup="faith",
    ),
    case(
        "decision-not-eligible",
        "PUT",
        f"{G}/reports/1/decisions/p2",
        409,
        "not-eligible",
        body={"choice": "support"},
        setup="faith",
    ),
    case(
        "decision-out-of-order",
        "PUT",
        f"{G}/reports/2/decisions/p1",
        409,
        "report-out-of-order",
        body={"choice": "support"},
        setup="faith",
    ),
    case(
        "decision-resolved",
        "PUT",
        f"{G}/reports/1/decisions/p1",
        409,
        "report-resolved",
        body={"choice": "support"},
        setup="resolved",
    ),
    # POST /v1/games/{id}/reports/{period}/resolution
    v422(
        "resolution-default-unknown",
        "POST",
        f"{G}/reports/1/resolution",
        ("body", "default_choice"),
        body={"default_choice": "abstain"},
    ),
    v422(
        "resolution-default-int",
        "POST",
        f"{G}/reports/1/resolution",
        ("body", "default_choice"),
        body={"default_choice": 1},
    ),
    v422(
        "resolution-unknown-field",
        "POST",
        f"{G}/reports/1/resolution",
        ("body", "outcomes"),
        body={"outcomes": []},
    ),
    v422("resolution-body-array", "POST", f"{G}/reports/1/resolution", ("body",), body=[]),
    raw("resolution-json-garbage", "POST", f"{G}/reports/1/resolution", b"{]", ("body", 1)),
    case(
        "resolution-decisions-pending",
        "POST",
        f"{G}/reports/1/resolution",
        409,
        "decisions-pending",
        body={},
        setup="faith",
        extra={"pending": ["p1"]},
    ),
    case(
        "resolution-out-of-order",
        "POST",
        f"{G}/reports/3/resolution",
        409,
        "report-out-of-order",
        body={},
    ),
    case(
        "resolution-resolved",
        "POST",
        f"{G}/reports/1/resolution",
        409,
        "report-resolved",
        body={},
        setup="resolved",
    ),
    case(
        "resolution-too-large",
        "POST",
        f"{G}/reports/1/resolution",
        413,
        "payload-too-large",
        content=big_body(),
        headers=JSON_CT,
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Reports: a problem, and the game exactly as it was."""
    await run_game_case(c)
