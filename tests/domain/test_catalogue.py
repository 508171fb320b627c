"""The tile catalogue as data (R-DRAW-1, R-DRAW-4): the 21 base tiles, pack loading,
and effects applied by kind, never by tile id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.domain.actions import ActionRequest, action_value
from app.domain.effects import effect_as_dict
from app.domain.gains import Gain, apply_gains
from app.domain.leaders import SANTA_RITA
from app.domain.order import OrderPlayer, placement_order
from app.domain.scoring import ScoringPlayer, final_scores
from app.domain.tiles import Catalogue, Tile
from app.services.tile_packs import TilePackError, load_catalogue, load_pack_file, parse_pack

# RULES.md, tile by tile: the effect each base tile carries.
BASE_EFFECTS: list[tuple[str, dict[str, Any]]] = [
    (
        "I-1",
        {
            "kind": "gain_reduction",
            "resources": ["military_points"],
            "amount": 1,
            "choose_one": False,
        },
    ),
    ("I-2", {"kind": "gain_reduction", "resources": ["coins"], "amount": 1, "choose_one": False}),
    (
        "I-3",
        {"kind": "gain_reduction", "resources": ["servants"], "amount": 1, "choose_one": False},
    ),
    (
        "I-4",
        {"kind": "gain_reduction", "resources": ["wood", "stone"], "amount": 1, "choose_one": True},
    ),
    ("I-5", {"kind": "action_value_change", "actions": ["harvest"], "amount": -3}),
    ("I-6", {"kind": "action_value_change", "actions": ["production"], "amount": -3}),
    ("I-7", {"kind": "coloured_member_change", "amount": -1}),
    ("II-1", {"kind": "action_value_change", "actions": ["territory"], "amount": -4}),
    ("II-2", {"kind": "action_value_change", "actions": ["building"], "amount": -4}),
    ("II-3", {"kind": "action_value_change", "actions": ["character"], "amount": -4}),
    ("II-4", {"kind": "action_value_change", "actions": ["venture"], "amount": -4}),
    ("II-5", {"kind": "forbidden_area", "action": "market"}),
    ("II-6", {"kind": "servant_rate", "servants_per_point": 2}),
    ("II-7", {"kind": "skip_first_turn"}),
    ("III-1", {"kind": "no_end_scoring", "card_type": "characters"}),
    ("III-2", {"kind": "no_end_scoring", "card_type": "ventures"}),
    ("III-3", {"kind": "no_end_scoring", "card_type": "territories"}),
    ("III-4", {"kind": "vp_loss_per_vp", "per": 5, "amount": 1}),
    ("III-5", {"kind": "vp_loss_per_count", "counts": ["military_points"], "per": 1, "amount": 1}),
    (
        "III-6",
        {
            "kind": "vp_loss_per_count",
            "counts": ["building_costs.wood", "building_costs.stone"],
            "per": 1,
            "amount": 1,
        },
    ),
    (
        "III-7",
        {
            "kind": "vp_loss_per_count",
            "counts": [
                "resources.wood",
                "resources.stone",
                "resources.coins",
                "resources.servants",
            ],
            "per": 1,
            "amount": 1,
        },
    ),
]


def text(n: int = 1) -> dict[str, str]:
    return {"en": f"Test tile {n}", "it": f"Tessera di prova {n}"}


def pack(*tiles: dict[str, Any], expansion: str = "hor") -> dict[str, Any]:
    return {"format": 1, "expansion": expansion, "tiles": list(tiles)}


def raw_tile(tile_id: str = "X-1", period: int = 1, **effect: Any) -> dict[str, Any]:
    return {
        "id": tile_id,
        "period": period,
        "effect": effect
        or {"kind": "gain_reduction", "resources": ["coins"], "amount": 1, "choose_one": False},
        "text": text(),
    }


def write(folder: Path, name: str, document: Any) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(document) if not isinstance(document, str) else document, "utf-8")
    return path


def test_r_draw_1_catalogue_has_the_21_base_tiles_in_rules_order(catalogue: Catalogue) -> None:
    assert [t.id for t in catalogue.select()] == [tile_id for tile_id, _ in BASE_EFFECTS]
    assert [t.period for t in catalogue.select()] == [1] * 7 + [2] * 7 + [3] * 7
    assert {t.expansion for t in catalogue.select()} == {"base"}


@pytest.mark.parametrize(("tile_id", "effect"), BASE_EFFECTS)
def test_r_draw_1_each_base_tile_carries_its_rules_effect(
    catalogue: Catalogue, tile_id: str, effect: dict[str, Any]
) -> None:
    tile = catalogue.require(tile_id)
    assert effect_as_dict(tile.effect) == effect


@pytest.mark.parametrize("tile_id", [tile_id for tile_id, _ in BASE_EFFECTS])
def test_r_draw_1_each_base_tile_has_english_and_italian_text(
    catalogue: Catalogue, tile_id: str
) -> None:
    tile = catalogue.require(tile_id)
    assert set(tile.text) == {"en", "it"}
    assert tile.text["en"].strip() and tile.text["it"].strip()
    assert tile.text["en"] != tile.text["it"]


def test_r_draw_4_valid_pack_loads_from_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "packs"
    write(
        folder,
        "hor.json",
        pack(
            raw_tile("HOR-1", 1),
            raw_tile("HOR-2", 2, kind="servant_rate", servants_per_point=3),
            raw_tile("HOR-3", 3, kind="vp_loss_per_count", counts=["military_points"], per=2),
        ),
    )
    write(
        folder, "promo.json", pack(raw_tile("NE-1", 2, kind="skip_first_turn"), expansion="promo")
    )
    write(folder, "notes.txt", "not a pack, not read")
    catalogue = load_catalogue(folder)
    assert catalogue.expansions == ("base", "hor", "promo")
    assert [t.id for t in catalogue.select()][21:] == ["HOR-1", "HOR-2", "HOR-3", "NE-1"]
    assert effect_as_dict(catalogue.require("HOR-3").effect) == {
        "kind": "vp_loss_per_count",
        "counts": ["military_points"],
        "per": 2,
        "amount": 1,
    }


def test_r_draw_4_missing_pack_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TilePackError, match="does not exist"):
        load_catalogue(tmp_path / "nowhere")


INVALID_PACKS: list[tuple[str, Any, str]] = [
    ("not_json", "{not json", "cannot read a JSON document"),
    ("list", [], "pack: Input should be a valid dictionary"),
    ("format", {**pack(raw_tile()), "format": 2}, "format: Input should be 1"),
    (
        "expansion",
        pack(raw_tile(), expansion="has space"),
        "expansion: String should match pattern",
    ),
    ("base_reserved", pack(raw_tile(), expansion="base"), "'base' is reserved"),
    ("no_tiles", pack(), "tiles: List should have at least 1 item"),
    (
        "unknown_field",
        pack({**raw_tile(), "colour": "red"}),
        "tiles[0].colour: Extra inputs are not permitted",
    ),
    ("period", pack(raw_tile(period=4)), "tiles[0].period: Input should be 1, 2 or 3"),
    ("id", pack({**raw_tile(), "id": ""}), "tiles[0].id: String should have at least 1 character"),
    ("text", pack({**raw_tile(), "text": {"en": "only english"}}), "tiles[0].text"),
    (
        "kind",
        pack(raw_tile(kind="double_vp")),
        "tiles[0].effect: Input tag 'double_vp' found using 'kind' does not match",
    ),
    (
        "resource",
        pack(raw_tile(kind="gain_reduction", resources=["gold"])),
        "tiles[0].effect.gain_reduction.resources[0]: Input should be 'coins'",
    ),
    (
        "parameter",
        pack(raw_tile(kind="skip_first_turn", amount=1)),
        "tiles[0].effect.skip_first_turn.amount: Extra inputs are not permitted",
    ),
    (
        "amount",
        pack(raw_tile(kind="gain_reduction", resources=["coins"], amount=0)),
        "tiles[0].effect.gain_reduction.amount: Input should be greater than 0",
    ),
    (
        "action",
        pack(raw_tile(kind="forbidden_area", action="tower")),
        "tiles[0].effect.forbidden_area.action: Input should be 'harvest'",
    ),
    ("duplicate", pack(raw_tile("X-1"), raw_tile("X-1")), "'X-1' is defined twice"),
    ("clash_with_base", pack(raw_tile("I-2")), "'I-2' is defined twice"),
]


@pytest.mark.parametrize(
    ("name", "document", "message"), INVALID_PACKS, ids=[case[0] for case in INVALID_PACKS]
)
def test_r_draw_4_invalid_pack_is_refused_with_file_and_place(
    tmp_path: Path, name: str, document: Any, message: str
) -> None:
    folder = tmp_path / "packs"
    write(folder, f"{name}.json", document)
    with pytest.raises(TilePackError) as raised:
        load_catalogue(folder)
    assert message in str(raised.value)
    if name not in ("duplicate", "clash_with_base"):
        assert f"{name}.json" in str(raised.value)


def test_r_draw_4_pack_file_loader_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "hor.json", pack(raw_tile(period=0)))
    with pytest.raises(TilePackError, match=r"hor\.json: tiles\[0\]\.period"):
        load_pack_file(path)


@pytest.mark.parametrize("bad", [1.0, True, "1"])
def test_r_draw_4_period_must_be_an_integer(bad: Any) -> None:
    with pytest.raises(TilePackError, match="period"):
        parse_pack(pack(raw_tile(period=bad)), "t.json")


@pytest.mark.parametrize("bad", [1.0, True, "1"])
def test_r_draw_4_format_must_be_the_integer_one(bad: Any) -> None:
    with pytest.raises(TilePackError, match="format"):
        parse_pack({**pack(raw_tile()), "format": bad}, "t.json")


def same_as(tile: Tile, new_id: str) -> Tile:
    document = pack(
        {"id": new_id, "period": tile.period, "effect": effect_as_dict(tile.effect), "text": text()}
    )
    (copy,) = parse_pack(document, "copy.json")
    return copy


def test_r_draw_4_effects_apply_by_kind_never_by_tile_id(catalogue: Catalogue) -> None:
    i2 = catalogue.require("I-2")
    x1 = same_as(i2, "X-1")
    gains = [
        Gain("card_immediate", {"coins": 2}),
        Gain("action_space", {"coins": 1, "wood": 2}),
        Gain("council_privilege", {"coins": 2}),
        Gain("personal_bonus_tile", {"servants": 1}),
    ]
    with_i2 = apply_gains([i2], frozenset({SANTA_RITA}), gains)
    with_x1 = apply_gains([x1], frozenset({SANTA_RITA}), gains)
    assert with_x1.total == with_i2.total == {"coins": 4, "wood": 2, "servants": 1}
    assert [g.result for g in with_x1.gains] == [g.result for g in with_i2.gains]
    assert [s.by for g in with_x1.gains for s in g.steps if s.rule == "R-GAIN-3"] == ["X-1"] * 3


@pytest.mark.parametrize(
    "tile_id", ["I-4", "I-5", "I-7", "II-2", "II-5", "II-6", "II-7", "III-1", "III-4", "III-7"]
)
def test_r_draw_4_every_kind_behaves_the_same_under_a_new_id(
    catalogue: Catalogue, tile_id: str
) -> None:
    tile = catalogue.require(tile_id)
    copy = same_as(tile, "X-9")

    gains = [Gain("action_space", {"wood": 2, "stone": 3, "coins": 1})]
    assert (
        apply_gains([copy], frozenset(), gains).total
        == apply_gains([tile], frozenset(), gains).total
    )

    for action in ("harvest", "building", "market"):
        request = ActionRequest(action, "family_member", "black", die=5, servants_spent=3)
        a, b = action_value([tile], request), action_value([copy], request)
        assert (a.allowed, a.value) == (b.allowed, b.value)

    order = [OrderPlayer("a", (tile,)), OrderPlayer("b")]
    order_copy = [OrderPlayer("a", (copy,)), OrderPlayer("b")]
    assert placement_order(order) == placement_order(order_copy)

    player = dict(
        victory_points=26, military_points=3, territories=4, characters=3, venture_points=9,
        resources={"wood": 2, "coins": 4}, building_costs={"wood": 1, "stone": 2},
    )  # fmt: skip
    scored = final_scores([ScoringPlayer("a", (tile,), **player)])  # type: ignore[arg-type]
    scored_copy = final_scores([ScoringPlayer("a", (copy,), **player)])  # type: ignore[arg-type]
    assert scored[0].total == scored_copy[0].total
