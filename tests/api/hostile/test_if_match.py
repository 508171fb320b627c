"""If-Match on the mutations of a stored game: anything but the current version -> 412."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import Case, CaseRunner, G, case

STALE = {"If-Match": '"1"'}  # the game is at version 2 after setup="faith"

CASES = [
    case(
        "if-match-garbage",
        "PUT",
        f"{G}/faith",
        412,
        "version-mismatch",
        body={"faith": {"p1": 3}},
        headers={"If-Match": "abc"},
    ),
    case(
        "if-match-negative",
        "PUT",
        f"{G}/players/p1/faith",
        412,
        "version-mismatch",
        body={"faith": 3},
        headers={"If-Match": '"-1"'},
    ),
    case(
        "if-match-quoted-word",
        "PUT",
        f"{G}/players/p1/leaders",
        412,
        "version-mismatch",
        body={"leaders": []},
        headers={"If-Match": '"one"'},
    ),
    case(
        "if-match-huge",
        "PUT",
        f"{G}/turn-order",
        412,
        "version-mismatch",
        body={"turn_order": ["p1", "p2", "p3"]},
        headers={"If-Match": '"' + "9" * 40 + '"'},
    ),
    case(
        "if-match-empty",
        "POST",
        f"{G}/reports/1/resolution",
        412,
        "version-mismatch",
        body={},
        headers={"If-Match": ""},
    ),
    case(
        "if-match-stale-faith",
        "PUT",
        f"{G}/faith",
        412,
        "version-mismatch",
        body={"faith": {"p2": 3}},
        headers=STALE,
        setup="faith",
    ),
    case(
        "if-match-stale-decision",
        "PUT",
        f"{G}/reports/1/decisions/p1",
        412,
        "version-mismatch",
        body={"choice": "support"},
        headers=STALE,
        setup="faith",
    ),
    case(
        "if-match-stale-resolution",
        "POST",
        f"{G}/reports/1/resolution",
        412,
        "version-mismatch",
        body={"default_choice": "support"},
        headers=STALE,
        setup="faith",
    ),
    case(
        "if-match-future-leaders",
        "PUT",
        f"{G}/players/p1/leaders",
        412,
        "version-mismatch",
        body={"leaders": []},
        headers={"If-Match": '"99"'},
    ),
    case(
        "if-match-stale-faith-change",
        "POST",
        f"{G}/players/p1/faith-changes",
        412,
        "version-mismatch",
        body={"delta": 1},
        headers=STALE,
        setup="faith",
    ),
    case(
        "if-match-stale-undo",
        "POST",
        f"{G}/undo",
        412,
        "version-mismatch",
        headers=STALE,
        setup="faith",
    ),
    # Before the rules: a stale redo is 412 even with nothing to redo.
    case(
        "if-match-stale-redo",
        "POST",
        f"{G}/redo",
        412,
        "version-mismatch",
        headers=STALE,
        setup="faith",
    ),
    case(
        "if-match-stale-round-advance",
        "POST",
        f"{G}/round-advances",
        412,
        "version-mismatch",
        headers=STALE,
        setup="faith",
    ),
    case(
        "if-match-stale-seat-token",
        "POST",
        f"{G}/seats/host/token",
        412,
        "version-mismatch",
        headers=STALE,
        setup="faith",
    ),
    case(
        "if-match-stale-seat-revoke",
        "DELETE",
        f"{G}/seats/p1/token",
        412,
        "version-mismatch",
        headers=STALE,
        setup="faith",
    ),
    case(
        "if-match-stale-delete", "DELETE", G, 412, "version-mismatch", headers=STALE, setup="faith"
    ),
    case(
        "if-match-stale-weak",
        "PUT",
        f"{G}/turn-order",
        412,
        "version-mismatch",
        body={"turn_order": ["p3", "p2", "p1"]},
        headers={"If-Match": 'W/"1"'},
        setup="faith",
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """If-Match: a problem, and the game exactly as it was."""
    await run_game_case(c)
