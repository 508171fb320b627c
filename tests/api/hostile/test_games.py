"""A stored game's URLs: unknown or malformed game and player ids, paths and methods that
do not exist (the endpoints' bodies: one module each)."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import GAIN, Case, CaseRunner, G, case

CASES = [
    # unknown or malformed game ids in the path
    case("game-id-very-long", "GET", f"/v1/games/{'g' * 5000}", 404, "not-found"),
    case("game-id-sql", "GET", "/v1/games/'%20OR%20'1'='1", 404, "not-found"),
    case("game-id-nul", "GET", "/v1/games/{game}%00", 404, "not-found"),
    case("game-id-nul-report", "GET", "/v1/games/%00/reports/1", 404, "not-found"),
    case("game-id-nul-events", "GET", "/v1/games/a%00b/events", 404, "not-found"),
    case(
        "game-id-nul-faith",
        "PUT",
        "/v1/games/{game}%00/faith",
        404,
        "not-found",
        body={"faith": {"p1": 1}},
    ),
    case(
        "game-id-nul-resolution-with-key",
        "POST",
        "/v1/games/%00/reports/1/resolution",
        404,
        "not-found",
        body={},
        headers={"Idempotency-Key": "nul-1-0123456789abcdefghij"},
    ),
    case("game-id-invalid-utf8", "GET", "/v1/games/%FF%FE", 404, "not-found"),
    case("game-id-emoji", "GET", "/v1/games/%F0%9F%A6%81", 404, "not-found"),
    # unknown or malformed player ids in the path
    case(
        "player-unknown-faith", "PUT", f"{G}/players/p9/faith", 404, "not-found", body={"faith": 1}
    ),
    case(
        "player-case-variant-faith",
        "PUT",
        f"{G}/players/P1/faith",
        404,
        "not-found",
        body={"faith": 1},
    ),
    case(
        "player-nul-faith", "PUT", f"{G}/players/p1%00/faith", 404, "not-found", body={"faith": 1}
    ),
    case(
        "player-unknown-leaders",
        "PUT",
        f"{G}/players/p4/leaders",
        404,
        "not-found",
        body={"leaders": []},
    ),
    case(
        "player-unknown-decision",
        "PUT",
        f"{G}/reports/1/decisions/p0",
        404,
        "not-found",
        body={"choice": "support"},
    ),
    case(
        "player-unknown-gains",
        "POST",
        f"{G}/players/nobody/gain-adjustments",
        404,
        "not-found",
        body={"gains": [GAIN]},
    ),
    # paths a game does not have
    case("unknown-subresource", "GET", f"{G}/players/p1", 404, "not-found"),
    case("unknown-reports-list", "GET", f"{G}/reports", 404, "not-found"),
    case(
        "unknown-trailing-segment",
        "PUT",
        f"{G}/players/p1/faith/extra",
        404,
        "not-found",
        body={"faith": 1},
    ),
    # methods a game's paths do not have
    case("put-undo", "PUT", f"{G}/undo", 405, "method-not-allowed", body={}),
    case("get-seat-token", "GET", f"{G}/seats/p1/token", 405, "method-not-allowed"),
    case("get-recovery", "GET", f"{G}/recovery", 405, "method-not-allowed"),
    case(
        "delete-faith-changes", "DELETE", f"{G}/players/p1/faith-changes", 405, "method-not-allowed"
    ),
    case("patch-game", "PATCH", G, 405, "method-not-allowed", body={"seed": 1}),
    case("post-game", "POST", G, 405, "method-not-allowed", body={}),
    case("get-faith", "GET", f"{G}/faith", 405, "method-not-allowed"),
    case("delete-leaders", "DELETE", f"{G}/players/p1/leaders", 405, "method-not-allowed"),
    case("post-turn-order", "POST", f"{G}/turn-order", 405, "method-not-allowed", body={}),
    case("get-resolution", "GET", f"{G}/reports/1/resolution", 405, "method-not-allowed"),
    case("put-resolution", "PUT", f"{G}/reports/1/resolution", 405, "method-not-allowed", body={}),
    case("delete-decision", "DELETE", f"{G}/reports/1/decisions/p1", 405, "method-not-allowed"),
    case("post-events", "POST", f"{G}/events", 405, "method-not-allowed", body={}),
    case("get-final-scores", "GET", f"{G}/final-scores", 405, "method-not-allowed"),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """A game's URLs: a problem, and the game exactly as it was."""
    await run_game_case(c)
