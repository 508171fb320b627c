"""R-DRAW-1 .. R-DRAW-4: drawing or naming the three tiles, and extra packs."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.domain.draw import DRAW_ALGORITHM, MAX_SEED, draw_index, draw_tiles, named_tiles
from app.domain.errors import InvalidInput, UnknownExpansion
from app.domain.tiles import Catalogue
from app.services.tile_packs import load_catalogue
from tests.support.tile_packs import hor_pack

BASE = ["base"]


@pytest.mark.parametrize("seed", [0, 1, 42, 2**40, MAX_SEED])
def test_r_draw_1_one_tile_per_period_from_its_pool(catalogue: Catalogue, seed: int) -> None:
    draw = draw_tiles(catalogue, BASE, seed)
    assert sorted(draw.tiles) == [1, 2, 3]
    for period, tile in draw.tiles.items():
        assert tile.period == period
        assert tile in catalogue.pool(period, BASE)


@pytest.mark.parametrize("period", [1, 2, 3])
def test_r_draw_1_base_pool_is_the_seven_tiles_of_the_period(
    catalogue: Catalogue, period: int
) -> None:
    roman = "I" * period
    assert [t.id for t in catalogue.pool(period, BASE)] == [f"{roman}-{n}" for n in range(1, 8)]


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1])
def test_r_draw_1_seed_out_of_range_is_invalid(catalogue: Catalogue, seed: int) -> None:
    with pytest.raises(InvalidInput) as raised:
        draw_tiles(catalogue, BASE, seed)
    assert raised.value.loc == ("seed",)


# Worked example of docs/rules.md: seed 42, base pools.
WORKED_EXAMPLE = [
    (1, "03ddf851127d6cfe", 278651779053087998, 5, "I-6"),
    (2, "cdf56f9773da76b6", 14840890843343779510, 2, "II-3"),
    (3, "9943b4bc886dc1e8", 11043869433078333928, 6, "III-7"),
]


@pytest.mark.parametrize(("period", "prefix", "number", "index", "tile_id"), WORKED_EXAMPLE)
def test_r_draw_2_worked_example(
    catalogue: Catalogue, period: int, prefix: str, number: int, index: int, tile_id: str
) -> None:
    digest = hashlib.sha256(f"42:{period}".encode("ascii")).digest()
    assert digest.hex()[:16] == prefix
    assert int.from_bytes(digest[:8], "big") == number
    assert number % 7 == index
    assert draw_index(42, period, 7) == index
    draw = draw_tiles(catalogue, BASE, 42)
    assert draw.tiles[period].id == tile_id
    assert draw.seed == 42
    assert draw.algorithm == DRAW_ALGORITHM == "sha256-mod-v1"


def test_r_draw_2_same_seed_and_pools_give_the_same_tiles(catalogue: Catalogue) -> None:
    again = load_catalogue()
    for seed in range(50):
        first = {p: t.id for p, t in draw_tiles(catalogue, BASE, seed).tiles.items()}
        second = {p: t.id for p, t in draw_tiles(again, BASE, seed).tiles.items()}
        assert first == second


def test_r_draw_2_index_is_sha256_prefix_modulo_pool(catalogue: Catalogue) -> None:
    for seed in (7, 123456789):
        for period in (1, 2, 3):
            digest = hashlib.sha256(f"{seed}:{period}".encode("ascii")).digest()
            assert draw_index(seed, period, 9) == int.from_bytes(digest[:8], "big") % 9


def test_r_draw_3_named_tiles_are_taken_as_given(catalogue: Catalogue) -> None:
    draw = named_tiles(catalogue, {1: "I-4", 2: "II-6", 3: "III-1"}, BASE)
    assert {p: t.id for p, t in draw.tiles.items()} == {1: "I-4", 2: "II-6", 3: "III-1"}
    assert draw.seed is None
    assert draw.algorithm is None


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ({1: "II-1", 2: "II-6", 3: "III-1"}, "belongs to period 2"),
        ({1: "I-1", 2: "II-9", 3: "III-1"}, "Unknown excommunication tile"),
        ({1: "I-1", 2: "II-1"}, "name a tile for period 3"),
    ],
)
def test_r_draw_3_named_tiles_are_validated(
    catalogue: Catalogue, names: dict[int, str], message: str
) -> None:
    with pytest.raises(InvalidInput, match=message) as raised:
        named_tiles(catalogue, names, BASE)
    assert raised.value.loc[0] == "tiles"


def test_r_draw_3_named_tile_from_an_expansion_not_enabled_is_invalid(tmp_path: Path) -> None:
    catalogue = load_catalogue(hor_pack(tmp_path))
    with pytest.raises(InvalidInput, match="not enabled") as raised:
        named_tiles(catalogue, {1: "HOR-1", 2: "II-1", 3: "III-1"}, BASE)
    assert raised.value.loc == ("tiles", "1")
    draw = named_tiles(catalogue, {1: "HOR-1", 2: "II-1", 3: "III-1"}, ["base", "hor"])
    assert draw.tiles[1].expansion == "hor"


@pytest.mark.parametrize(
    ("expansions", "slug"),
    [(["base", "nope"], "unknown-expansion"), (["hor"], "unknown-expansion")],
)
def test_r_draw_4_expansions_must_be_known_and_include_base(
    tmp_path: Path, expansions: list[str], slug: str
) -> None:
    catalogue = load_catalogue(hor_pack(tmp_path))
    with pytest.raises(UnknownExpansion) as raised:
        draw_tiles(catalogue, expansions, 1)
    assert raised.value.slug == slug


def test_r_draw_4_enabled_pack_joins_each_pool_after_the_base_tiles(tmp_path: Path) -> None:
    catalogue = load_catalogue(hor_pack(tmp_path))
    for period in (1, 2, 3):
        pool = catalogue.pool(period, ["base", "hor"])
        assert len(pool) == 8
        assert pool[-1].id == f"HOR-{period}"
        assert catalogue.pool(period, BASE) == pool[:7]
    seen = {draw_tiles(catalogue, ["base", "hor"], seed).tiles[1].id for seed in range(300)}
    assert "HOR-1" in seen
    assert all(
        draw_tiles(catalogue, BASE, seed).tiles[1].expansion == "base" for seed in range(300)
    )


def test_r_draw_4_no_extra_pack_is_bundled(catalogue: Catalogue) -> None:
    # The HoR and promo texts are not public here: only the base tiles ship.
    assert catalogue.expansions == ("base",)
    assert len(catalogue.select()) == 21
