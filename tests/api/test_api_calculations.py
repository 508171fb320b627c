"""API.md "Calculations": stateless answers through HTTP, with exact numbers, each one
explained by its steps or parts, on both databases."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.test_api_support import (
    assert_gains_explained,
    assert_problem,
    assert_scores_explained,
    assert_value_explained,
)

# ---- vatican-report --------------------------------------------------------------------


async def report(client: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post("/v1/calculations/vatican-report", json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    for outcome in result["outcomes"]:
        vp = outcome["victory_points"]
        assert vp["total"] == vp["faith"] + vp["sisto_iv"], outcome
        assert outcome["threshold"] == result["threshold"]
    return result


def by_player(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {o["player_id"]: o for o in result["outcomes"]}


async def test_r_rep_4_5_8_9_every_outcome_kind_in_period_1(client: httpx.AsyncClient) -> None:
    players = [
        {"id": "anna", "faith": 5, "leaders": ["sisto_iv"], "choice": "support"},
        {"id": "bruno", "faith": 2, "leaders": []},
        {"id": "carla", "faith": 4, "leaders": [], "choice": "refuse"},
        {"id": "dario", "faith": 1, "leaders": ["martin_lutero"]},
        {"id": "elena", "faith": 6, "leaders": ["martin_lutero"], "choice": "refuse"},
        {"id": "fabio", "faith": 3, "choice": "support"},
    ]
    result = await report(client, {"period": 1, "tile_id": "I-2", "players": players[:5]})
    assert result["period"] == 1 and result["threshold"] == 3
    # R-REP-3: outcomes come in the turn order given.
    assert [o["player_id"] for o in result["outcomes"]] == [p["id"] for p in players[:5]]
    o = by_player(result)
    assert {k: o["anna"][k] for k in ("faith_before", "faith_after", "outcome", "tile_id")} == {
        "faith_before": 5,
        "faith_after": 0,
        "outcome": "supported",
        "tile_id": None,
    }
    assert o["anna"]["excommunicated"] is False
    assert o["anna"]["victory_points"] == {"faith": 5, "sisto_iv": 5, "total": 10}
    assert "R-REP-8" in o["anna"]["rules"] and "R-FT-1" in o["anna"]["rules"]

    assert o["bruno"]["outcome"] == "excommunicated" and o["bruno"]["excommunicated"] is True
    assert o["bruno"]["tile_id"] == "I-2" and o["bruno"]["faith_after"] == 2
    assert o["bruno"]["victory_points"] == {"faith": 0, "sisto_iv": 0, "total": 0}
    assert "R-REP-4" in o["bruno"]["rules"]

    assert o["carla"]["outcome"] == "excommunicated" and o["carla"]["tile_id"] == "I-2"
    assert o["carla"]["faith_before"] == 4 and o["carla"]["faith_after"] == 4

    assert o["dario"]["outcome"] == "spared" and o["dario"]["excommunicated"] is False
    assert o["dario"]["tile_id"] is None and o["dario"]["faith_after"] == 1
    assert "R-REP-9" in o["dario"]["rules"]

    assert o["elena"]["outcome"] == "refused" and o["elena"]["excommunicated"] is False
    assert o["elena"]["tile_id"] is None and o["elena"]["faith_after"] == 6
    assert o["elena"]["victory_points"]["total"] == 0


async def test_r_rep_5_at_the_threshold_a_player_may_support(client: httpx.AsyncClient) -> None:
    result = await report(
        client,
        {"period": 2, "tile_id": "II-5", "players": [{"id": "a", "faith": 4, "choice": "support"}]},
    )
    assert by_player(result)["a"]["outcome"] == "supported"
    assert by_player(result)["a"]["victory_points"] == {"faith": 4, "sisto_iv": 0, "total": 4}


async def test_r_rep_8_sisto_iv_refusing_earns_nothing(client: httpx.AsyncClient) -> None:
    result = await report(
        client,
        {
            "period": 2,
            "tile_id": "II-1",
            "players": [{"id": "a", "faith": 9, "leaders": ["sisto_iv"], "choice": "refuse"}],
        },
    )
    assert by_player(result)["a"]["victory_points"] == {"faith": 0, "sisto_iv": 0, "total": 0}
    assert by_player(result)["a"]["tile_id"] == "II-1"


async def test_r_rep_6_period_3_needs_no_choices(client: httpx.AsyncClient) -> None:
    players = [
        {"id": "a", "faith": 7, "leaders": ["sisto_iv"]},  # eligible, no choice: supports
        {"id": "b", "faith": 2, "leaders": ["sisto_iv"]},  # short: excommunicated, faith VP
        {"id": "c", "faith": 10, "choice": "refuse"},  # refuses: excommunicated, faith VP
        {"id": "d", "faith": 3, "leaders": ["martin_lutero"]},  # short Lutero: spared
        {"id": "e", "faith": 0},
    ]
    o = by_player(await report(client, {"period": 3, "tile_id": "III-4", "players": players}))
    assert o["a"]["outcome"] == "supported"
    assert o["a"]["victory_points"] == {"faith": 9, "sisto_iv": 5, "total": 14}
    assert o["b"]["outcome"] == "excommunicated" and o["b"]["tile_id"] == "III-4"
    assert o["b"]["victory_points"] == {"faith": 2, "sisto_iv": 0, "total": 2}
    assert o["b"]["faith_after"] == 0 and "R-REP-6" in o["b"]["rules"]
    assert o["c"]["outcome"] == "excommunicated" and o["c"]["tile_id"] == "III-4"
    assert o["c"]["victory_points"] == {"faith": 15, "sisto_iv": 0, "total": 15}
    assert o["c"]["faith_after"] == 0
    assert o["d"]["outcome"] == "spared" and o["d"]["tile_id"] is None
    assert o["d"]["excommunicated"] is False
    assert o["d"]["victory_points"]["total"] == 3 and o["d"]["faith_after"] == 0
    assert o["e"]["outcome"] == "excommunicated" and o["e"]["victory_points"]["total"] == 0


async def test_r_rep_9_lutero_refusing_in_period_3_scores_faith(client: httpx.AsyncClient) -> None:
    players = [{"id": "a", "faith": 8, "leaders": ["martin_lutero"], "choice": "refuse"}]
    o = by_player(await report(client, {"period": 3, "tile_id": "III-1", "players": players}))
    assert o["a"]["outcome"] == "refused" and o["a"]["excommunicated"] is False
    assert o["a"]["tile_id"] is None and o["a"]["faith_after"] == 0
    assert o["a"]["victory_points"] == {"faith": 11, "sisto_iv": 0, "total": 11}


async def test_decisions_pending_names_eligible_players_in_turn_order(
    client: httpx.AsyncClient,
) -> None:
    players = [
        {"id": "zeno", "faith": 9},
        {"id": "ugo", "faith": 1},
        {"id": "alba", "faith": 4},
        {"id": "mia", "faith": 5, "choice": "support"},
    ]
    response = await client.post(
        "/v1/calculations/vatican-report", json={"period": 2, "players": players}
    )
    # API.md: in a calculation, an eligible player without a choice makes the request
    # invalid (422); `pending` names them all, `errors` points at the first one's choice.
    body = assert_problem(response, 422, "validation-error", loc=["body", "players", 0, "choice"])
    assert body["pending"] == ["zeno", "alba"]
    response = await client.post(
        "/v1/calculations/vatican-report", json={"period": 2, "players": players[::-1]}
    )
    assert assert_problem(response, 422, "validation-error")["pending"] == ["alba", "zeno"]


async def test_r_rep_5_short_players_choice_is_ignored_with_a_note(
    client: httpx.AsyncClient,
) -> None:
    players = [{"id": "a", "faith": 2, "choice": "support"}]
    o = by_player(await report(client, {"period": 1, "tile_id": "I-7", "players": players}))["a"]
    assert o["outcome"] == "excommunicated" and o["tile_id"] == "I-7"
    assert o["victory_points"]["total"] == 0
    assert any("ignored" in note for note in o["notes"]), o["notes"]


async def test_r_ft_2_faith_above_15_counts_as_15(client: httpx.AsyncClient) -> None:
    players = [{"id": "a", "faith": 22, "leaders": ["sisto_iv"], "choice": "support"}]
    o = by_player(await report(client, {"period": 1, "players": players}))["a"]
    assert o["faith_before"] == 15 and o["faith_after"] == 0
    assert o["victory_points"] == {"faith": 30, "sisto_iv": 5, "total": 35}
    assert "R-FT-2" in o["rules"] and o["notes"]


async def test_report_without_tile_reports_no_tile(client: httpx.AsyncClient) -> None:
    o = by_player(await report(client, {"period": 1, "players": [{"id": "a", "faith": 0}]}))["a"]
    assert o["outcome"] == "excommunicated" and o["tile_id"] is None


VATICAN_REPORT_INVALID_INPUT_CASES = [
    ({"period": 1, "tile_id": "II-1", "players": [{"id": "a", "faith": 1}]}, ["tile_id"]),
    ({"period": 1, "tile_id": "I-9", "players": [{"id": "a", "faith": 1}]}, ["tile_id"]),
    ({"period": 4, "players": [{"id": "a", "faith": 1}]}, ["body", "period"]),
    ({"period": 1, "players": [{"id": "a", "faith": -1}]}, ["players", 0, "faith"]),
    ({"period": 1, "players": [{"id": "a", "faith": "3"}]}, ["players", 0, "faith"]),
    ({"period": 1, "players": [{"id": "a", "faith": 3.0}]}, ["players", 0, "faith"]),
    (
        {"period": 1, "players": [{"id": "a", "faith": 3, "choice": "maybe"}]},
        ["players", 0, "choice"],
    ),
    ({"period": 1, "players": [{"id": "a", "faith": 3, "extra": 1}]}, ["players", 0, "extra"]),
    ({"period": 1, "players": [{"id": "a", "faith": 1}, {"id": "a", "faith": 1}]}, None),
    ({"period": 1, "players": []}, ["body", "players"]),
]


async def test_vatican_report_invalid_input(client: httpx.AsyncClient) -> None:
    for body, loc in VATICAN_REPORT_INVALID_INPUT_CASES:
        response = await client.post("/v1/calculations/vatican-report", json=body)
        assert_problem(response, 422, "validation-error", loc=loc)


# ---- gains -----------------------------------------------------------------------------


async def gains(client: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post("/v1/calculations/gains", json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    assert_gains_explained(result)
    return result


def card(resources: dict[str, int], **extra: Any) -> dict[str, Any]:
    return {"source": {"kind": "card_immediate", "name": "a card"}, "resources": resources, **extra}


async def test_r_gain_5_santa_rita_2_coins_under_i_2_gives_3(client: httpx.AsyncClient) -> None:
    result = await gains(
        client,
        {"excommunications": ["I-2"], "leaders": ["santa_rita"], "gains": [card({"coins": 2})]},
    )
    gain = result["gains"][0]
    assert gain["source"] == {"kind": "card_immediate", "name": "a card"}
    assert gain["received"] == {"coins": 2}
    assert [(s["rule"], s["by"], s["change"]) for s in gain["steps"]] == [
        ("R-GAIN-5", "santa_rita", {"coins": 2}),
        ("R-GAIN-3", "I-2", {"coins": -1}),
    ]
    assert gain["result"] == {"coins": 3}
    assert result["total"] == {"coins": 3}


async def test_r_gain_5_santa_rita_not_on_action_spaces(client: httpx.AsyncClient) -> None:
    space = {"source": {"kind": "action_space"}, "resources": {"coins": 2, "wood": 1}}
    result = await gains(client, {"leaders": ["santa_rita"], "gains": [space]})
    assert result["gains"][0]["steps"] == []
    assert result["total"] == {"coins": 2, "wood": 1}


async def test_r_gain_5_santa_rita_doubles_only_printed_goods(client: httpx.AsyncClient) -> None:
    body = card({"wood": 1, "military_points": 2, "faith_points": 1}, privileges=[{"stone": 2}])
    result = await gains(client, {"leaders": ["santa_rita"], "gains": [body]})
    gain = result["gains"][0]
    assert gain["received"] == {"wood": 1, "stone": 2, "military_points": 2, "faith_points": 1}
    assert [s["change"] for s in gain["steps"]] == [{"wood": 1}]
    assert result["total"] == {"wood": 2, "stone": 2, "military_points": 2, "faith_points": 1}


R_GAIN_4_WOOD_OR_STONE_DEFAULT_AND_NAMED_CASES = [
    ({"wood": 2, "stone": 1}, None, {"wood": 1, "stone": 1}),
    ({"wood": 1, "stone": 3}, None, {"wood": 1, "stone": 2}),
    ({"wood": 2, "stone": 2}, None, {"wood": 1, "stone": 2}),
    ({"wood": 2, "stone": 1}, "stone", {"wood": 2}),
    ({"wood": 2, "stone": 1}, "wood", {"wood": 1, "stone": 1}),
    ({"wood": 2}, "stone", {"wood": 1}),
]


async def test_r_gain_4_wood_or_stone_default_and_named(client: httpx.AsyncClient) -> None:
    for resources, named, result in R_GAIN_4_WOOD_OR_STONE_DEFAULT_AND_NAMED_CASES:
        gain: dict[str, Any] = {"source": {"kind": "action_space"}, "resources": resources}
        if named is not None:
            gain["wood_or_stone"] = named
        answer = await gains(client, {"excommunications": ["I-4"], "gains": [gain]})
        one = answer["gains"][0]
        assert {k: v for k, v in one["result"].items() if v} == result
        assert len(one["steps"]) == 1 and one["steps"][0]["rule"] == "R-GAIN-4"
        assert one["steps"][0]["by"] == "I-4" and one["steps"][0]["note"]


async def test_r_gain_2_privileges_join_the_cards_immediate_effect(
    client: httpx.AsyncClient,
) -> None:
    joined = card({"coins": 1, "wood": 1}, privileges=[{"coins": 2}])
    separate = [
        {"source": {"kind": "card_immediate"}, "resources": {"coins": 1, "wood": 1}},
        {"source": {"kind": "council_privilege"}, "resources": {"coins": 2}},
    ]
    one = await gains(client, {"excommunications": ["I-2"], "gains": [joined]})
    assert one["gains"][0]["received"] == {"coins": 3, "wood": 1}
    assert one["gains"][0]["steps"][0]["change"] == {"coins": -1}
    assert one["total"] == {"coins": 2, "wood": 1}
    two = await gains(client, {"excommunications": ["I-2"], "gains": separate})
    assert [g["result"] for g in two["gains"]] == [{"coins": 0, "wood": 1}, {"coins": 1}]
    assert two["total"] == {"coins": 1, "wood": 1}


async def test_r_gain_2_5_santa_rita_does_not_double_the_joined_privilege(
    client: httpx.AsyncClient,
) -> None:
    body = {
        "excommunications": ["I-2"],
        "leaders": ["santa_rita"],
        "gains": [card({"coins": 1}, privileges=[{"coins": 2}])],
    }
    gain = (await gains(client, body))["gains"][0]
    assert [s["change"] for s in gain["steps"]] == [{"coins": 1}, {"coins": -1}]
    assert gain["result"] == {"coins": 3}


R_GAIN_3_ONE_FEWER_PER_GAIN_NEVER_BELOW_ZERO_CASES = [
    ("I-1", {"military_points": 3, "coins": 2}, {"military_points": 2, "coins": 2}),
    ("I-3", {"servants": 1, "coins": 1}, {"servants": 0, "coins": 1}),
    ("I-2", {"wood": 2}, {"wood": 2}),
    ("I-5", {"coins": 2}, {"coins": 2}),
]


async def test_r_gain_3_one_fewer_per_gain_never_below_zero(client: httpx.AsyncClient) -> None:
    for tile, resources, result in R_GAIN_3_ONE_FEWER_PER_GAIN_NEVER_BELOW_ZERO_CASES:
        gain = {"source": {"kind": "personal_bonus_tile"}, "resources": resources}
        answer = await gains(client, {"excommunications": [tile], "gains": [gain, gain]})
        assert [g["result"] for g in answer["gains"]] == [result, result]


async def test_gains_steps_explain_many_gains(client: httpx.AsyncClient) -> None:
    body = {
        "excommunications": ["I-4", "II-2", "III-1"],
        "leaders": ["santa_rita", "sisto_iv"],
        "gains": [
            card({"wood": 3, "stone": 1, "coins": 2}, privileges=[{"stone": 1}, {"servants": 1}]),
            {"source": {"kind": "card_permanent", "name": "x"}, "resources": {"stone": 2}},
            {"source": {"kind": "leader", "name": "y"}, "resources": {"faith_points": 2}},
            {"source": {"kind": "council_privilege"}, "resources": {"wood": 1, "stone": 1}},
        ],
    }
    result = await gains(client, body)
    assert [g["result"] for g in result["gains"]] == [
        {"coins": 4, "wood": 5, "stone": 3, "servants": 1},
        {"stone": 1},
        {"faith_points": 2},
        {"wood": 0, "stone": 1},
    ]
    assert result["total"] == {"coins": 4, "wood": 5, "stone": 5, "servants": 1, "faith_points": 2}


GAINS_INVALID_INPUT_CASES = [
    (
        {"gains": [{"source": {"kind": "action_space"}, "privileges": [{"coins": 1}]}]},
        ["gains", 0, "privileges"],
    ),
    ({"gains": [{"source": {"kind": "market"}}]}, ["gains", 0, "source", "kind"]),
    (
        {"gains": [{"source": {"kind": "leader"}, "resources": {"coins": -1}}]},
        ["gains", 0, "resources", "coins"],
    ),
    (
        {"gains": [{"source": {"kind": "leader"}, "resources": {"gold": 1}}]},
        ["gains", 0, "resources", "gold"],
    ),
    ({"excommunications": ["I-9"], "gains": [{"source": {"kind": "leader"}}]}, None),
    (
        {"excommunications": ["I-1", "I-2"], "gains": [{"source": {"kind": "leader"}}]},
        ["excommunications", 1],
    ),
    ({"leaders": ["lorenzo"], "gains": [{"source": {"kind": "leader"}}]}, ["leaders", 0]),
    ({"gains": []}, ["body", "gains"]),
]


async def test_gains_invalid_input(client: httpx.AsyncClient) -> None:
    for body, loc in GAINS_INVALID_INPUT_CASES:
        response = await client.post("/v1/calculations/gains", json=body)
        assert_problem(response, 422, "validation-error", loc=loc)


# ---- action-value ----------------------------------------------------------------------


async def action(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/calculations/action-value", json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    assert_value_explained(result)
    return result


def steps(result: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(s["rule"], s["by"], s["change"]) for s in result["steps"]]


async def test_r_act_3_i_5_large_harvest_is_die_minus_6(client: httpx.AsyncClient) -> None:
    base = {"excommunications": ["I-5"], "action": "harvest", "origin": "family_member"}
    result = await action(
        client, **base, family_member="black", die=6, large_space=True, required_value=1
    )
    assert result["value"] == 0 and result["allowed"] is True
    assert result["reaches_required"] is False
    assert steps(result) == [
        ("R-ACT-1", "family_member:black", 6),
        ("R-ACT-3", "large_space", -3),
        ("R-ACT-3", "I-5", -3),
    ]
    result = await action(
        client,
        **base,
        family_member="white",
        die=6,
        large_space=True,
        servants_spent=2,
        required_value=1,
    )
    assert result["value"] == 2 and result["reaches_required"] is True


async def test_r_act_3_value_never_below_zero(client: httpx.AsyncClient) -> None:
    result = await action(
        client,
        excommunications=["I-6"],
        action="production",
        origin="family_member",
        family_member="orange",
        die=1,
    )
    assert result["value"] == 0
    assert steps(result)[-1] == ("R-ACT-6", "floor", 2)


async def test_r_act_3_card_effect_origin(client: httpx.AsyncClient) -> None:
    result = await action(
        client, excommunications=["I-5"], action="harvest", origin="card_effect", base_value=4
    )
    assert result["value"] == 1
    assert steps(result) == [("R-ACT-1", "card_effect", 4), ("R-ACT-3", "I-5", -3)]


async def test_r_act_4_card_granted_action_is_worth_4_less(client: httpx.AsyncClient) -> None:
    result = await action(
        client,
        excommunications=["II-1"],
        action="territory",
        origin="card_effect",
        base_value=6,
        required_value=2,
    )
    assert result["value"] == 2 and result["reaches_required"] is True
    other = await action(
        client, excommunications=["II-1"], action="building", origin="card_effect", base_value=6
    )
    assert other["value"] == 6 and other["reaches_required"] is None


R_ACT_2_II_6_SERVANTS_COUNT_ONE_PER_TWO_CASES = [(0, 0), (1, 0), (2, 1), (3, 1), (5, 2)]


async def test_r_act_2_ii_6_servants_count_one_per_two(client: httpx.AsyncClient) -> None:
    for servants, raised in R_ACT_2_II_6_SERVANTS_COUNT_ONE_PER_TWO_CASES:
        result = await action(
            client,
            excommunications=["II-6"],
            action="character",
            origin="family_member",
            family_member="black",
            die=3,
            servants_spent=servants,
        )
        assert result["value"] == 3 + raised
        plain = await action(
            client,
            action="character",
            origin="family_member",
            family_member="black",
            die=3,
            servants_spent=servants,
        )
        assert plain["value"] == 3 + servants


async def test_r_act_5_ii_5_market_not_allowed(client: httpx.AsyncClient) -> None:
    result = await action(
        client,
        excommunications=["II-5"],
        action="market",
        origin="family_member",
        family_member="white",
        die=5,
        required_value=1,
    )
    assert result["allowed"] is False and result["reaches_required"] is False
    assert steps(result)[-1] == ("R-ACT-5", "II-5", 0)
    elsewhere = await action(
        client,
        excommunications=["II-5"],
        action="council_palace",
        origin="family_member",
        family_member="white",
        die=1,
        required_value=1,
    )
    assert elsewhere["allowed"] is True and elsewhere["reaches_required"] is True


async def test_r_act_1_i_7_coloured_members_worth_one_less(client: httpx.AsyncClient) -> None:
    base = {"excommunications": ["I-7"], "action": "venture", "origin": "family_member"}
    coloured = await action(client, **base, family_member="orange", die=4, required_value=4)
    assert coloured["value"] == 3 and coloured["reaches_required"] is False
    assert steps(coloured) == [("R-ACT-1", "family_member:orange", 4), ("R-ACT-1", "I-7", -1)]
    neutral = await action(client, **base, family_member="neutral", servants_spent=2)
    assert neutral["value"] == 2
    assert steps(neutral) == [("R-ACT-1", "family_member:neutral", 0), ("R-ACT-2", "servants", 2)]


async def test_action_modifier_is_a_step(client: httpx.AsyncClient) -> None:
    result = await action(
        client, action="harvest", origin="family_member", family_member="black", die=2, modifier=3
    )
    assert result["value"] == 5 and steps(result)[1] == ("input", "modifier", 3)


ACTION_VALUE_INVALID_INPUT_CASES = [
    ({"action": "harvest", "origin": "family_member", "family_member": "black"}, ["die"]),
    ({"action": "harvest", "origin": "family_member"}, ["family_member"]),
    (
        {"action": "harvest", "origin": "family_member", "family_member": "black", "die": 7},
        ["body", "die"],
    ),
    ({"action": "harvest", "origin": "card_effect"}, ["base_value"]),
    (
        {"action": "territory", "origin": "card_effect", "base_value": 3, "large_space": True},
        ["large_space"],
    ),
    (
        {"action": "harvest", "origin": "card_effect", "base_value": 3, "die": 2},
        ["family_member"],
    ),
    ({"action": "fishing", "origin": "card_effect", "base_value": 3}, ["body", "action"]),
    (
        {"action": "harvest", "origin": "card_effect", "base_value": 3, "servants_spent": -1},
        ["body", "servants_spent"],
    ),
]


async def test_action_value_invalid_input(client: httpx.AsyncClient) -> None:
    for body, loc in ACTION_VALUE_INVALID_INPUT_CASES:
        response = await client.post("/v1/calculations/action-value", json=body)
        assert_problem(response, 422, "validation-error", loc=loc)


# ---- placement-order -------------------------------------------------------------------


async def placements(client: httpx.AsyncClient, players: list[dict[str, Any]]) -> list[str]:
    response = await client.post("/v1/calculations/placement-order", json={"players": players})
    assert response.status_code == 200, response.text
    return [f"{p['player_id']}{p['member']}" for p in response.json()["placements"]]


async def test_r_ord_1_ii_7_skips_first_turn_and_places_last(client: httpx.AsyncClient) -> None:
    order = await placements(
        client,
        [
            {"id": "a", "excommunications": []},
            {"id": "b", "excommunications": ["I-3", "II-7"]},
            {"id": "c"},
        ],
    )
    assert order == ["a1", "c1", "a2", "b1", "c2", "a3", "b2", "c3", "a4", "b3", "c4", "b4"]


async def test_r_ord_1_several_skippers_place_last_in_turn_order(
    client: httpx.AsyncClient,
) -> None:
    order = await placements(
        client,
        [
            {"id": "a", "excommunications": ["II-7"], "family_members": 2},
            {"id": "b", "family_members": 2},
            {"id": "c", "excommunications": ["II-7"], "family_members": 2},
        ],
    )
    assert order == ["b1", "a1", "b2", "c1", "a2", "c2"]


async def test_r_ord_1_without_ii_7_plain_rounds(client: httpx.AsyncClient) -> None:
    order = await placements(client, [{"id": "x", "family_members": 3}, {"id": "y"}])
    assert order == ["x1", "y1", "x2", "y2", "x3", "y3", "y4"]


PLACEMENT_ORDER_INVALID_INPUT_CASES = [
    ([{"id": "a", "family_members": -1}], ["players", 0, "family_members"]),
    ([{"id": "a"}, {"id": "a"}], ["players"]),
    ([{"id": "a", "excommunications": ["II-9"]}], ["players", 0, "excommunications", 0]),
    ([], ["body", "players"]),
]


async def test_placement_order_invalid_input(client: httpx.AsyncClient) -> None:
    for players, loc in PLACEMENT_ORDER_INVALID_INPUT_CASES:
        response = await client.post("/v1/calculations/placement-order", json={"players": players})
        assert_problem(response, 422, "validation-error", loc=loc)


# ---- final-scores ----------------------------------------------------------------------


async def scores(client: httpx.AsyncClient, players: list[dict[str, Any]]) -> dict[str, Any]:
    response = await client.post("/v1/calculations/final-scores", json={"players": players})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    assert_scores_explained(result)
    return {p["player_id"]: p for p in result["players"]}


def parts(score: dict[str, Any]) -> dict[str, int]:
    return {p["part"]: p["change"] for p in score["parts"]}


async def test_r_end_2_iii_4_26_vp_loses_5(client: httpx.AsyncClient) -> None:
    result = await scores(
        client, [{"id": "a", "victory_points": 26, "excommunications": ["III-4"]}]
    )
    assert result["a"]["total"] == 21
    loss = next(p for p in result["a"]["parts"] if p["part"] == "vp_loss_per_vp")
    assert (loss["rule"], loss["change"], loss["by"]) == ("R-END-2", -5, "III-4")


async def test_r_end_1_every_part_of_a_full_player(client: httpx.AsyncClient) -> None:
    player = {
        "id": "a",
        "victory_points": 26,
        "military_points": 7,
        "territories": 4,
        "characters": 3,
        "venture_points": 9,
        "resources": {"coins": 3, "wood": 2, "stone": 1, "servants": 4},
        "building_costs": {"wood": 3, "stone": 2},
        "excommunications": ["I-1", "II-7", "III-4"],
    }
    result = await scores(client, [player, {"id": "b", "military_points": 2}])
    assert parts(result["a"]) == {
        "victory_points": 26,
        "vp_loss_per_vp": -5,
        "territories": 4,
        "characters": 6,
        "ventures": 9,
        "military": 5,
        "resources": 2,
    }
    assert result["a"]["total"] == 47
    assert result["b"]["total"] == 2


R_END_1_MILITARY_TIES_CASES = [
    ([10, 10, 5, 0], [5, 5, 0, 0]),
    ([10, 5, 5, 0], [5, 2, 2, 0]),
    ([3, 8, 1, 2], [2, 5, 0, 0]),
    ([0, 0, 0, 0], [0, 0, 0, 0]),
    ([4, 0, 0, 0], [5, 0, 0, 0]),
]


async def test_r_end_1_military_ties(client: httpx.AsyncClient) -> None:
    for military, awards in R_END_1_MILITARY_TIES_CASES:
        players = [{"id": f"p{i}", "military_points": m} for i, m in enumerate(military)]
        result = await scores(client, players)
        assert [parts(result[f"p{i}"])["military"] for i in range(4)] == awards


R_END_1_CARD_TABLES_CASES = [
    (0, 0, 0),
    (1, 0, 1),
    (2, 0, 3),
    (3, 1, 6),
    (4, 4, 10),
    (5, 10, 15),
    (6, 20, 21),
]


async def test_r_end_1_card_tables(client: httpx.AsyncClient) -> None:
    for count, territory_vp, character_vp in R_END_1_CARD_TABLES_CASES:
        result = await scores(client, [{"id": "a", "territories": count, "characters": count}])
        assert parts(result["a"])["territories"] == territory_vp
        assert parts(result["a"])["characters"] == character_vp
        assert result["a"]["total"] == territory_vp + character_vp


R_END_3_CARD_TYPES_SCORE_NOTHING_CASES = [
    ("III-1", "characters"),
    ("III-2", "ventures"),
    ("III-3", "territories"),
]


async def test_r_end_3_card_types_score_nothing(client: httpx.AsyncClient) -> None:
    for tile, part in R_END_3_CARD_TYPES_SCORE_NOTHING_CASES:
        player = {
            "id": "a",
            "territories": 5,
            "characters": 5,
            "venture_points": 7,
            "excommunications": [tile],
        }
        result = await scores(client, [player])
        full = {"territories": 10, "characters": 15, "ventures": 7}
        assert parts(result["a"])[part] == 0
        assert result["a"]["total"] == sum(full.values()) - full[part]


async def test_r_end_3_4_losses_and_floors(client: httpx.AsyncClient) -> None:
    result = await scores(
        client,
        [
            {"id": "a", "victory_points": 1, "military_points": 8, "excommunications": ["III-5"]},
            {"id": "b", "military_points": 10},
            {
                "id": "c",
                "victory_points": 20,
                "building_costs": {"wood": 3, "stone": 4},
                "excommunications": ["III-6"],
            },
            {
                "id": "d",
                "victory_points": 4,
                "resources": {"coins": 5, "wood": 4, "stone": 2, "servants": 1},
                "excommunications": ["III-7"],
            },
        ],
    )
    # a: 1 + second place 2 - 8 military points = -5, floored to 0.
    assert parts(result["a"]) == {
        "victory_points": 1,
        "territories": 0,
        "characters": 0,
        "ventures": 0,
        "military": 2,
        "resources": 0,
        "vp_loss_per_count": -8,
        "floor": 5,
    }
    assert result["a"]["total"] == 0
    assert result["b"]["total"] == 5
    assert parts(result["c"])["vp_loss_per_count"] == -7 and result["c"]["total"] == 13
    # d: 4 + 12 resources // 5 = 2, less 12 for III-7 -> -6, floored.
    assert parts(result["d"])["resources"] == 2 and parts(result["d"])["vp_loss_per_count"] == -12
    assert result["d"]["total"] == 0 and parts(result["d"])["floor"] == 6


async def test_final_scores_defaults_are_zero(client: httpx.AsyncClient) -> None:
    result = await scores(client, [{"id": "a"}])
    assert result["a"]["total"] == 0


FINAL_SCORES_INVALID_INPUT_CASES = [
    ([{"id": "a", "territories": 7}], ["players", 0, "territories"]),
    ([{"id": "a", "victory_points": -1}], ["players", 0, "victory_points"]),
    ([{"id": "a", "resources": {"gold": 1}}], ["players", 0, "resources", "gold"]),
    ([{"id": "a", "building_costs": {"coins": 1}}], ["players", 0, "building_costs", "coins"]),
    ([{"id": "a"}, {"id": "a"}], ["players"]),
    ([{"id": "a", "excommunications": ["III-1", "III-4"]}], None),
]


async def test_final_scores_invalid_input(client: httpx.AsyncClient) -> None:
    for players, loc in FINAL_SCORES_INVALID_INPUT_CASES:
        response = await client.post("/v1/calculations/final-scores", json={"players": players})
        assert_problem(response, 422, "validation-error", loc=loc)
