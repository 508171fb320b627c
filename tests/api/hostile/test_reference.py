"""Reference data (no auth, nothing stored): excommunication tiles, the faith track, tile draws."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import (
    JSON_CT,
    Case,
    CaseRunner,
    big_body,
    case,
    deep_object,
    raw,
    v422,
)

TILES = "/v1/excommunication-tiles"
DRAW = "/v1/tile-draws"

CASES = [
    # GET /v1/excommunication-tiles and /v1/excommunication-tiles/{tile_id}
    v422("tiles-period-0", "GET", f"{TILES}?period=0", ("query", "period")),
    v422("tiles-period-4", "GET", f"{TILES}?period=4", ("query", "period")),
    v422("tiles-period-x", "GET", f"{TILES}?period=x", ("query", "period")),
    v422("tiles-period-float", "GET", f"{TILES}?period=1.0", ("query", "period")),
    v422("tiles-period-negative", "GET", f"{TILES}?period=-1", ("query", "period")),
    v422("tiles-period-huge", "GET", f"{TILES}?period={10**100}", ("query", "period")),
    v422(
        "tiles-expansion-too-long", "GET", f"{TILES}?expansion={'x' * 300}", ("query", "expansion")
    ),
    case(
        "tiles-expansion-unknown",
        "GET",
        f"{TILES}?expansion=nope",
        422,
        "unknown-expansion",
        ("query", "expansion"),
    ),
    case("tile-unknown", "GET", f"{TILES}/IV-1", 404, "not-found"),
    case("tile-lowercase", "GET", f"{TILES}/i-1", 404, "not-found"),
    case("tile-zero", "GET", f"{TILES}/I-0", 404, "not-found"),
    case("tile-very-long", "GET", f"{TILES}/{'I' * 5000}", 404, "not-found"),
    case("tile-dot-dot", "GET", f"{TILES}/%2E%2E", 404, "not-found"),
    case("tile-nul", "GET", f"{TILES}/I-1%00", 404, "not-found"),
    case("tiles-post", "POST", TILES, 405, "method-not-allowed", body={}),
    case("tile-delete", "DELETE", f"{TILES}/I-1", 405, "method-not-allowed"),
    # GET /v1/faith-track, and an API version that does not exist
    case("faith-track-post", "POST", "/v1/faith-track", 405, "method-not-allowed", body={}),
    case("v2", "GET", "/v2/faith-track", 404, "not-found"),
    # POST /v1/tile-draws
    case("tile-draws-get", "GET", DRAW, 405, "method-not-allowed"),
    case("tile-draws-put", "PUT", DRAW, 405, "method-not-allowed", body={}),
    v422("draw-seed-string", "POST", DRAW, ("body", "seed"), body={"seed": "42"}),
    v422("draw-seed-float-integral", "POST", DRAW, ("body", "seed"), body={"seed": 42.0}),
    v422("draw-seed-float", "POST", DRAW, ("body", "seed"), body={"seed": 1.5}),
    v422("draw-seed-bool", "POST", DRAW, ("body", "seed"), body={"seed": True}),
    v422("draw-seed-negative", "POST", DRAW, ("body", "seed"), body={"seed": -1}),
    v422("draw-seed-2**63", "POST", DRAW, ("body", "seed"), body={"seed": 2**63}),
    v422("draw-seed-2**53", "POST", DRAW, ("body", "seed"), body={"seed": 2**53}),
    v422("draw-seed-10**100", "POST", DRAW, ("body", "seed"), body={"seed": 10**100}),
    v422("draw-seed-array", "POST", DRAW, ("body", "seed"), body={"seed": [1]}),
    v422(
        "draw-expansions-string", "POST", DRAW, ("body", "expansions"), body={"expansions": "base"}
    ),
    v422("draw-expansions-empty", "POST", DRAW, ("body", "expansions"), body={"expansions": []}),
    v422("draw-expansions-null", "POST", DRAW, ("body", "expansions"), body={"expansions": None}),
    v422("draw-expansions-int", "POST", DRAW, ("body", "expansions", 0), body={"expansions": [1]}),
    case(
        "draw-expansion-unknown",
        "POST",
        DRAW,
        422,
        "unknown-expansion",
        ("body", "expansions", 0),
        body={"expansions": ["nope"]},
    ),
    case(
        "draw-expansion-case-variant",
        "POST",
        DRAW,
        422,
        "unknown-expansion",
        ("body", "expansions", 0),
        body={"expansions": ["BASE"]},
    ),
    case(
        "draw-expansions-without-base",
        "POST",
        DRAW,
        422,
        "unknown-expansion",
        ("body", "expansions", 1),
        body={"expansions": ["base", "promo"]},
    ),
    v422("draw-unknown-field", "POST", DRAW, ("body", "algorithm"), body={"algorithm": "md5"}),
    v422("draw-body-array", "POST", DRAW, ("body",), body=[{"seed": 1}]),
    raw("draw-json-truncated", "POST", DRAW, b'{"seed": 4', ("body", 10)),
    raw("draw-json-trailing-garbage", "POST", DRAW, b'{"seed": 4} x', ("body", 12)),
    raw("draw-json-nan", "POST", DRAW, b'{"seed": NaN}', ("body", "seed")),
    raw("draw-json-infinity", "POST", DRAW, b'{"seed": -Infinity}', ("body", "seed")),
    raw("draw-json-bare-string", "POST", DRAW, b'"seed"', ("body",)),
    raw("draw-json-null", "POST", DRAW, b"null", ("body",)),
    raw("draw-json-empty", "POST", DRAW, b"", ("body",)),
    raw("draw-json-not-utf8", "POST", DRAW, b'{"seed": "\xff\xfe"}', None),
    raw("draw-json-deep-object", "POST", DRAW, deep_object(), None),
    case(
        "draw-text-plain",
        "POST",
        DRAW,
        415,
        "unsupported-media-type",
        content=b'{"seed": 1}',
        headers={"content-type": "text/plain"},
    ),
    case(
        "draw-form-encoded",
        "POST",
        DRAW,
        415,
        "unsupported-media-type",
        content=b"seed=1",
        headers={"content-type": "application/x-www-form-urlencoded"},
    ),
    raw("draw-no-content-type", "POST", DRAW, b'{"seed": 1}', ("body",), headers={}),
    case(
        "draw-too-large",
        "POST",
        DRAW,
        413,
        "payload-too-large",
        content=big_body(),
        headers=JSON_CT,
    ),
    case(
        "draw-too-large-chunked",
        "POST",
        DRAW,
        413,
        "payload-too-large",
        stream=big_body(),
        headers=JSON_CT,
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_stateless(run_stateless_case: CaseRunner, c: Case) -> None:
    """Reference data: a problem, and nothing stored."""
    await run_stateless_case(c)
