"""Who may call a stored game's endpoints: no token, a wrong one or another game's -> 401;
a player's token where only the host (or another player) may act -> 403; an unknown
game -> 404. Every endpoint is listed in ENDPOINTS with a request the host may make."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.hostile.harness import GAIN, UNSET, Case, CaseRunner, G, case

UNKNOWN_GAME = "0" * 32
SCORES = {"players": [{"id": "p1"}, {"id": "p2"}, {"id": "p3"}]}

# Every game endpoint with a request that would succeed for the host (used for auth cases).
ENDPOINTS: list[tuple[str, str, str, Any]] = [
    ("get-game", "GET", G, UNSET),
    ("player-faith", "PUT", f"{G}/players/p1/faith", {"faith": 3}),
    ("faith", "PUT", f"{G}/faith", {"faith": {"p1": 3}}),
    ("leaders", "PUT", f"{G}/players/p1/leaders", {"leaders": ["santa_rita"]}),
    ("turn-order", "PUT", f"{G}/turn-order", {"turn_order": ["p2", "p1", "p3"]}),
    ("get-report", "GET", f"{G}/reports/1", UNSET),
    ("decision", "PUT", f"{G}/reports/1/decisions/p1", {"choice": "support"}),
    ("resolution", "POST", f"{G}/reports/1/resolution", {}),
    ("gain-adjustments", "POST", f"{G}/players/p1/gain-adjustments", {"gains": [GAIN]}),
    ("final-scores", "POST", f"{G}/final-scores", SCORES),
    ("events", "GET", f"{G}/events", UNSET),
    ("faith-change", "POST", f"{G}/players/p1/faith-changes", {"delta": 1}),
    ("undo", "POST", f"{G}/undo", UNSET),
    ("redo", "POST", f"{G}/redo", UNSET),
    ("round-advance", "POST", f"{G}/round-advances", UNSET),
    ("seat-token", "POST", f"{G}/seats/p2/token", UNSET),
    ("seat-token-revoke", "DELETE", f"{G}/seats/p2/token", UNSET),
    ("delete-game", "DELETE", G, UNSET),
]

CASES = []
for _name, _method, _path, _body in ENDPOINTS:
    CASES += [
        case(f"{_name}-no-token", _method, _path, 401, "unauthorized", body=_body, auth=None),
        case(
            f"{_name}-basic-scheme",
            _method,
            _path,
            401,
            "unauthorized",
            body=_body,
            auth=None,
            headers={"Authorization": "Basic {host}"},
        ),
        case(
            f"{_name}-empty-bearer",
            _method,
            _path,
            401,
            "unauthorized",
            body=_body,
            auth=None,
            headers={"Authorization": "Bearer "},
        ),
        case(
            f"{_name}-other-games-token",
            _method,
            _path,
            401,
            "unauthorized",
            body=_body,
            auth="other",
        ),
        case(
            f"{_name}-unknown-game",
            _method,
            _path.replace("{game}", UNKNOWN_GAME),
            404,
            "not-found",
            body=_body,
        ),
    ]
CASES += [
    case(
        "get-game-token-without-scheme",
        "GET",
        G,
        401,
        "unauthorized",
        auth=None,
        headers={"Authorization": "{host}"},
    ),
    case(
        "get-game-wrong-token",
        "GET",
        G,
        401,
        "unauthorized",
        auth=None,
        headers={"Authorization": "Bearer " + "x" * 43},
    ),
    case(
        "faith-token-of-other-game-player",
        "PUT",
        f"{G}/faith",
        401,
        "unauthorized",
        body={"faith": {"p1": 3}},
        auth=None,
        headers={"Authorization": "Bearer {other_p1}"},
    ),
    case(
        "get-game-token-with-suffix",
        "GET",
        G,
        401,
        "unauthorized",
        auth=None,
        headers={"Authorization": "Bearer {host}x"},
    ),
    # a player token where only the host may act, or acting for another player -> 403
    case(
        "faith-batch-as-player",
        "PUT",
        f"{G}/faith",
        403,
        "forbidden",
        body={"faith": {"p1": 3}},
        auth="p1",
    ),
    case(
        "own-faith-as-player",
        "PUT",
        f"{G}/players/p1/faith",
        403,
        "forbidden",
        body={"faith": 3},
        auth="p1",
    ),
    case(
        "other-players-faith-as-player",
        "PUT",
        f"{G}/players/p2/faith",
        403,
        "forbidden",
        body={"faith": 3},
        auth="p1",
        setup="enter",
    ),
    case(
        "faith-batch-own-as-player-enter-faith",
        "PUT",
        f"{G}/faith",
        403,
        "forbidden",
        body={"faith": {"p1": 3}},
        auth="p1",
        setup="enter",
    ),
    case(
        "leaders-as-player",
        "PUT",
        f"{G}/players/p1/leaders",
        403,
        "forbidden",
        body={"leaders": []},
        auth="p1",
    ),
    case(
        "turn-order-as-player",
        "PUT",
        f"{G}/turn-order",
        403,
        "forbidden",
        body={"turn_order": ["p1", "p2", "p3"]},
        auth="p1",
    ),
    case(
        "decision-for-other-player",
        "PUT",
        f"{G}/reports/1/decisions/p2",
        403,
        "forbidden",
        body={"choice": "refuse"},
        auth="p1",
        setup="faith",
    ),
    case(
        "resolution-as-player",
        "POST",
        f"{G}/reports/1/resolution",
        403,
        "forbidden",
        body={},
        auth="p1",
    ),
    case(
        "gain-adjustments-for-other-player",
        "POST",
        f"{G}/players/p2/gain-adjustments",
        403,
        "forbidden",
        body={"gains": [GAIN]},
        auth="p1",
    ),
    case(
        "faith-change-as-player",
        "POST",
        f"{G}/players/p1/faith-changes",
        403,
        "forbidden",
        body={"delta": 1},
        auth="p1",
    ),
    case(
        "faith-change-for-other-player-enter-faith",
        "POST",
        f"{G}/players/p2/faith-changes",
        403,
        "forbidden",
        body={"delta": 1},
        auth="p1",
        setup="enter",
    ),
    case("undo-as-player", "POST", f"{G}/undo", 403, "forbidden", auth="p1", setup="faith"),
    case("redo-as-player", "POST", f"{G}/redo", 403, "forbidden", auth="p2"),
    case("round-advance-as-player", "POST", f"{G}/round-advances", 403, "forbidden", auth="p1"),
    case("own-seat-token-as-player", "POST", f"{G}/seats/p1/token", 403, "forbidden", auth="p1"),
    case("host-seat-token-as-player", "POST", f"{G}/seats/host/token", 403, "forbidden", auth="p1"),
    case("revoke-seat-as-player", "DELETE", f"{G}/seats/p2/token", 403, "forbidden", auth="p1"),
    case("delete-game-as-player", "DELETE", G, 403, "forbidden", auth="p1"),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Authorization: a problem, and the game exactly as it was."""
    await run_game_case(c)
