"""API.md "Reference data": the faith track, the tile catalogue and tile draws, on both
databases (they touch none, but run through the same app)."""

from __future__ import annotations

import hashlib

import httpx

from tests.api.test_api_support import assert_problem

FAITH_VP = [0, 1, 2, 3, 4, 5, 7, 9, 11, 13, 15, 17, 19, 22, 25, 30]
BASE_IDS = [f"{roman}-{n}" for roman in ("I", "II", "III") for n in range(1, 8)]


async def test_r_ft_1_faith_track_is_the_full_table_and_periods(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/faith-track")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {
        "max_faith": 15,
        "steps": [{"faith": f, "victory_points": vp} for f, vp in enumerate(FAITH_VP)],
        "periods": [
            {"period": 1, "report_round": 2, "threshold": 3},
            {"period": 2, "report_round": 4, "threshold": 4},
            {"period": 3, "report_round": 6, "threshold": 5},
        ],
    }
    assert response.headers.get("x-request-id")


async def test_tiles_list_is_the_21_base_tiles_in_catalogue_order(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/v1/excommunication-tiles")
    assert response.status_code == 200
    tiles = response.json()["tiles"]
    assert [t["id"] for t in tiles] == BASE_IDS
    for tile in tiles:
        assert set(tile) >= {"id", "period", "expansion", "effect", "text"}
        assert tile["period"] == {"I": 1, "II": 2, "III": 3}[tile["id"].split("-")[0]]
        assert tile["expansion"] == "base"
        assert isinstance(tile["effect"]["kind"], str)
        assert tile["text"]["en"] and tile["text"]["it"]
    by_id = {t["id"]: t for t in tiles}
    # API.md: I-2 = coins, II-7 = skip first turn, III-4 = 1 VP per 5 VP.
    assert by_id["I-2"]["effect"] == {
        "kind": "gain_reduction",
        "resources": ["coins"],
        "amount": 1,
        "choose_one": False,
    }
    assert by_id["II-7"]["effect"] == {"kind": "skip_first_turn"}
    assert by_id["III-4"]["effect"] == {"kind": "vp_loss_per_vp", "per": 5, "amount": 1}


TILES_FILTERED_BY_PERIOD_CASES = [1, 2, 3]


async def test_tiles_filtered_by_period(client: httpx.AsyncClient) -> None:
    for period in TILES_FILTERED_BY_PERIOD_CASES:
        response = await client.get("/v1/excommunication-tiles", params={"period": period})
        assert response.status_code == 200
        roman = {1: "I", 2: "II", 3: "III"}[period]
        assert [t["id"] for t in response.json()["tiles"]] == [f"{roman}-{n}" for n in range(1, 8)]


async def test_tiles_filtered_by_expansion_and_period(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/excommunication-tiles", params={"expansion": "base"})
    assert [t["id"] for t in response.json()["tiles"]] == BASE_IDS
    response = await client.get(
        "/v1/excommunication-tiles", params={"expansion": "base", "period": 3}
    )
    assert [t["id"] for t in response.json()["tiles"]] == [f"III-{n}" for n in range(1, 8)]


async def test_tiles_unknown_expansion_is_422_unknown_expansion(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/excommunication-tiles", params={"expansion": "atlantis"})
    body = assert_problem(response, 422, "unknown-expansion", loc=["query", "expansion"])
    # Named as FastAPI names a query parameter, not under "body".
    assert body["errors"][0]["loc"][0] == "query"


TILES_BAD_PERIOD_IS_422_NAMING_PERIOD_CASES = ["0", "4", "-1", "two", "1.5"]


async def test_tiles_bad_period_is_422_naming_period(client: httpx.AsyncClient) -> None:
    for period in TILES_BAD_PERIOD_IS_422_NAMING_PERIOD_CASES:
        response = await client.get("/v1/excommunication-tiles", params={"period": period})
        assert_problem(response, 422, "validation-error", loc=["query", "period"])


async def test_one_tile(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/excommunication-tiles/I-4")
    assert response.status_code == 200
    tile = response.json()
    assert tile["id"] == "I-4" and tile["period"] == 1 and tile["expansion"] == "base"
    assert tile["effect"] == {
        "kind": "gain_reduction",
        "resources": ["wood", "stone"],
        "amount": 1,
        "choose_one": True,
    }
    listed = (await client.get("/v1/excommunication-tiles", params={"period": 1})).json()
    assert tile == next(t for t in listed["tiles"] if t["id"] == "I-4")


UNKNOWN_TILE_IS_404_NOT_FOUND_CASES = ["IV-1", "I-8", "i-2", "nope"]


async def test_unknown_tile_is_404_not_found(client: httpx.AsyncClient) -> None:
    for tile_id in UNKNOWN_TILE_IS_404_NOT_FOUND_CASES:
        assert_problem(await client.get(f"/v1/excommunication-tiles/{tile_id}"), 404, "not-found")


def _expected_draw(seed: int) -> dict[str, str]:
    """The documented sha256-mod-v1 algorithm, re-implemented here as a client would."""
    tiles = {}
    for period, roman in ((1, "I"), (2, "II"), (3, "III")):
        digest = hashlib.sha256(f"{seed}:{period}".encode("ascii")).digest()
        tiles[str(period)] = f"{roman}-{int.from_bytes(digest[:8], 'big') % 7 + 1}"
    return tiles


async def test_r_draw_2_seed_42_draws_the_worked_example(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/tile-draws", json={"seed": 42})
    assert response.status_code == 200
    assert response.json() == {
        "seed": 42,
        "algorithm": "sha256-mod-v1",
        "tiles": {"1": "I-6", "2": "II-3", "3": "III-7"},
    }
    again = await client.post("/v1/tile-draws", json={"seed": 42, "expansions": ["base"]})
    assert again.json() == response.json()


R_DRAW_2_DRAW_FOLLOWS_THE_DOCUMENTED_ALGORITHM_CASES = [0, 1, 7, 2024, 2**53 - 1]


async def test_r_draw_2_draw_follows_the_documented_algorithm(client: httpx.AsyncClient) -> None:
    for seed in R_DRAW_2_DRAW_FOLLOWS_THE_DOCUMENTED_ALGORITHM_CASES:
        response = await client.post("/v1/tile-draws", json={"seed": seed})
        assert response.status_code == 200
        assert response.json()["tiles"] == _expected_draw(seed)


async def test_r_draw_2_omitted_seed_returns_the_seed_used_and_redraws_the_same(
    client: httpx.AsyncClient,
) -> None:
    first = await client.post("/v1/tile-draws", json={})
    assert first.status_code == 200
    seed = first.json()["seed"]
    assert isinstance(seed, int) and 0 <= seed <= 2**53 - 1
    again = await client.post("/v1/tile-draws", json={"seed": seed})
    assert again.json() == first.json()
    assert first.json()["tiles"] == _expected_draw(seed)


async def test_tile_draw_unknown_expansion_is_422(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/tile-draws", json={"seed": 1, "expansions": ["base", "xx"]})
    assert_problem(response, 422, "unknown-expansion", loc=["expansions", 1])
    response = await client.post("/v1/tile-draws", json={"seed": 1, "expansions": ["promo"]})
    assert_problem(response, 422, "unknown-expansion")


TILE_DRAW_STRICT_INPUT_CASES = [
    ({"seed": "42"}, ["body", "seed"]),
    ({"seed": 4.0}, ["body", "seed"]),
    ({"seed": -1}, ["body", "seed"]),
    ({"seed": 2**63}, ["body", "seed"]),
    ({"seed": 2**53}, ["body", "seed"]),
    ({"seed": 1, "colour": "red"}, ["body", "colour"]),
    ({"expansions": []}, ["body", "expansions"]),
]


async def test_tile_draw_strict_input(client: httpx.AsyncClient) -> None:
    for body, loc in TILE_DRAW_STRICT_INPUT_CASES:
        assert_problem(
            await client.post("/v1/tile-draws", json=body), 422, "validation-error", loc=loc
        )
