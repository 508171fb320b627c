"""Properties of the rules engine (hypothesis), deterministic and modest in size.

- A penalty never increases anything and never makes a value negative.
- Supporting always ends at faith 0 and pays exactly the table (+5 with Sisto IV).
- The draw is a pure function of the seed and the pools and reaches every tile.
- Placement order gives every player exactly their members, numbered 1..n.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.actions import ActionRequest, action_value
from app.domain.draw import draw_tiles
from app.domain.effects import ACTIONS as EFFECT_ACTIONS
from app.domain.faith import FAITH_VICTORY_POINTS, MAX_FAITH
from app.domain.gains import Gain, apply_gains
from app.domain.leaders import LEADERS, SISTO_IV
from app.domain.order import OrderPlayer, placement_order
from app.domain.report import ReportPlayer, resolve_report
from app.domain.scoring import ScoringPlayer, final_scores
from app.domain.tiles import Tile
from app.services.tile_packs import load_catalogue
from tests.settings import examples

CATALOGUE = load_catalogue()
BASE = ["base"]
PERIOD_TILES = {p: CATALOGUE.pool(p, BASE) for p in (1, 2, 3)}
PROPERTY = settings(max_examples=examples(200), derandomize=True, deadline=None, database=None)

RESOURCES = ("coins", "wood", "stone", "servants", "military_points", "faith_points")
SOURCES = (
    "action_space",
    "card_immediate",
    "card_permanent",
    "personal_bonus_tile",
    "council_privilege",
    "leader",
)
ACTIONS = EFFECT_ACTIONS

amounts = st.dictionaries(st.sampled_from(RESOURCES), st.integers(0, 8), max_size=6)
leader_sets = st.frozensets(st.sampled_from(LEADERS))


@st.composite
def held_tiles(draw: Any) -> tuple[Tile, ...]:
    """At most one tile per period, as a player can hold (R-REP-7)."""
    held = []
    for period in (1, 2, 3):
        tile = draw(st.none() | st.sampled_from(PERIOD_TILES[period]))
        if tile is not None:
            held.append(tile)
    return tuple(held)


@st.composite
def gains(draw: Any) -> Gain:
    source = draw(st.sampled_from(SOURCES))
    privileges = tuple(draw(st.lists(amounts, max_size=2))) if source == "card_immediate" else ()
    return Gain(
        source,
        draw(amounts),
        privileges=privileges,
        wood_or_stone=draw(st.none() | st.sampled_from(["wood", "stone"])),
    )


@PROPERTY
@given(held_tiles(), leader_sets, st.lists(gains(), max_size=5))
def test_a_penalty_never_increases_a_gain_nor_makes_it_negative(
    tiles: tuple[Tile, ...], leaders: frozenset[str], given_gains: list[Gain]
) -> None:
    with_tiles = apply_gains(tiles, leaders, given_gains)
    without = apply_gains((), leaders, given_gains)
    for hit, free in zip(with_tiles.gains, without.gains, strict=True):
        for key, amount in hit.result.items():
            assert 0 <= amount <= free.result.get(key, 0)
        # "1 fewer" takes at most 1 per kind and, for I-4, 1 of wood and stone together.
        lost = {k: free.result.get(k, 0) - hit.result.get(k, 0) for k in free.result}
        assert all(0 <= v <= 1 for v in lost.values())
        assert lost.get("wood", 0) + lost.get("stone", 0) <= 1
    assert all(0 <= v <= without.total.get(k, 0) for k, v in with_tiles.total.items())


@st.composite
def action_requests(draw: Any) -> ActionRequest:
    action = draw(st.sampled_from(ACTIONS))
    origin = draw(st.sampled_from(["family_member", "card_effect"]))
    servants = draw(st.integers(0, 10))
    modifier = draw(st.integers(-5, 5))
    required = draw(st.none() | st.integers(0, 12))
    if origin == "card_effect":
        return ActionRequest(
            action,
            origin,
            base_value=draw(st.integers(0, 12)),
            servants_spent=servants,
            modifier=modifier,
            required_value=required,
        )
    member = draw(st.sampled_from(["black", "white", "orange", "neutral"]))
    return ActionRequest(
        action,
        origin,
        member,
        die=None if member == "neutral" else draw(st.integers(1, 6)),
        large_space=action in ("harvest", "production") and draw(st.booleans()),
        servants_spent=servants,
        modifier=modifier,
        required_value=required,
    )


@PROPERTY
@given(held_tiles(), action_requests())
def test_a_penalty_never_raises_an_action_value_nor_makes_it_negative(
    tiles: tuple[Tile, ...], request: ActionRequest
) -> None:
    hit = action_value(tiles, request)
    free = action_value((), request)
    assert 0 <= hit.value <= free.value
    assert free.allowed
    if hit.reaches_required:
        assert free.reaches_required
    if not hit.allowed:
        assert hit.reaches_required in (False, None)


@st.composite
def scoring_tables(draw: Any) -> tuple[list[dict[str, Any]], list[tuple[Tile, ...]]]:
    size = draw(st.integers(1, 5))
    players = [
        {
            "victory_points": draw(st.integers(0, 120)),
            "military_points": draw(st.integers(0, 25)),
            "territories": draw(st.integers(0, 6)),
            "characters": draw(st.integers(0, 6)),
            "venture_points": draw(st.integers(0, 40)),
            "resources": draw(
                st.dictionaries(
                    st.sampled_from(["wood", "stone", "coins", "servants"]),
                    st.integers(0, 20),
                )
            ),
            "building_costs": draw(
                st.dictionaries(st.sampled_from(["wood", "stone"]), st.integers(0, 15))
            ),
        }
        for _ in range(size)
    ]
    return players, [draw(held_tiles()) for _ in range(size)]


@PROPERTY
@given(scoring_tables())
def test_a_penalty_never_raises_a_final_score_nor_makes_it_negative(
    table: tuple[list[dict[str, Any]], list[tuple[Tile, ...]]],
) -> None:
    players, held = table
    hit = final_scores([ScoringPlayer(f"p{i}", held[i], **p) for i, p in enumerate(players)])
    free = final_scores([ScoringPlayer(f"p{i}", (), **p) for i, p in enumerate(players)])
    for with_tiles, without in zip(hit, free, strict=True):
        assert 0 <= with_tiles.total <= without.total
        assert sum(part.change for part in with_tiles.parts) == with_tiles.total


@PROPERTY
@given(
    st.sampled_from([1, 2, 3]),
    st.lists(
        st.tuples(st.integers(0, 40), leader_sets, st.sampled_from([None, "support", "refuse"])),
        min_size=1,
        max_size=5,
    ),
)
def test_supporting_ends_at_zero_and_pays_exactly_the_table(
    period: int, raw: list[tuple[int, frozenset[str], Any]]
) -> None:
    players = [
        ReportPlayer(f"p{i}", faith, leaders, choice)
        for i, (faith, leaders, choice) in enumerate(raw)
    ]
    result = resolve_report(period, "X", players, default_choice="support")
    for player, outcome in zip(players, result.outcomes, strict=True):
        faith = min(player.faith, MAX_FAITH)
        assert outcome.faith_before == faith
        assert outcome.victory_points.total >= 0
        if outcome.outcome == "supported":
            assert outcome.faith_after == 0
            assert outcome.victory_points.faith == FAITH_VICTORY_POINTS[faith]
            bonus = 5 if SISTO_IV in player.leaders else 0
            assert outcome.victory_points.sisto_iv == bonus
        else:
            assert outcome.victory_points.sisto_iv == 0
            if period == 3:
                assert outcome.faith_after == 0
                assert outcome.victory_points.faith == FAITH_VICTORY_POINTS[faith]
            else:
                assert outcome.faith_after == faith
                assert outcome.victory_points.faith == 0
        if faith < result.threshold:
            assert outcome.outcome in ("excommunicated", "spared")


@PROPERTY
@given(st.integers(0, 2**53 - 1))
def test_the_draw_is_a_pure_function_of_seed_and_pools(seed: int) -> None:
    first = draw_tiles(CATALOGUE, BASE, seed)
    second = draw_tiles(load_catalogue(), list(BASE), seed)
    assert {p: t.id for p, t in first.tiles.items()} == {p: t.id for p, t in second.tiles.items()}
    assert all(tile.period == period for period, tile in first.tiles.items())


def test_the_draw_reaches_every_tile_across_seeds() -> None:
    seen: dict[int, Counter[str]] = {1: Counter(), 2: Counter(), 3: Counter()}
    for seed in range(2001):
        for period, tile in draw_tiles(CATALOGUE, BASE, seed).tiles.items():
            seen[period][tile.id] += 1
    for period, counts in seen.items():
        assert set(counts) == {t.id for t in PERIOD_TILES[period]}
        # Roughly uniform: each of 7 tiles near 2001 / 7 = 286.
        assert all(200 < n < 380 for n in counts.values()), counts


def test_all_tile_combinations_draw_independently_of_period() -> None:
    # Each pair of periods hashes separately: no seed range forces one period's tile.
    pairs = {
        (draw.tiles[1].id, draw.tiles[2].id)
        for draw in (draw_tiles(CATALOGUE, BASE, seed) for seed in range(2001))
    }
    assert len(pairs) == 49


@PROPERTY
@given(
    st.lists(
        st.tuples(st.booleans(), st.integers(0, 6)),
        min_size=1,
        max_size=5,
    )
)
def test_placement_gives_every_player_exactly_their_members(raw: list[tuple[bool, int]]) -> None:
    ii7 = (CATALOGUE.require("II-7"),)
    players = [
        OrderPlayer(f"p{i}", ii7 if skips else (), members)
        for i, (skips, members) in enumerate(raw)
    ]
    order = placement_order(players)
    for player in players:
        mine = [p.member for p in order if p.player_id == player.id]
        assert sorted(mine) == list(range(1, player.family_members + 1))
        if not any(t.id == "II-7" for t in player.tiles):
            assert mine == sorted(mine)
    # A player with II-7 and members places last, after everyone else has placed them all.
    skippers = [p.id for p in players if p.tiles and p.family_members > 0]
    tail = order[len(order) - len(skippers) :]
    assert [p.player_id for p in tail] == skippers
