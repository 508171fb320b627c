"""Calculations (no auth, nothing stored): POST /v1/calculations/*, one section each."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.hostile.harness import (
    GAIN,
    JSON_CT,
    Case,
    CaseRunner,
    big_body,
    case,
    deep_array,
    raw,
    v422,
)

VR = "/v1/calculations/vatican-report"
GAINS = "/v1/calculations/gains"
AV = "/v1/calculations/action-value"
ORDER = "/v1/calculations/placement-order"
FINAL = "/v1/calculations/final-scores"

OK_REPORT_PLAYER = {"id": "a", "faith": 1, "leaders": []}


def _av(**fields: Any) -> dict[str, Any]:
    return {"action": "harvest", "origin": "family_member", "die": 3, **fields}


def _vr(player: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    return {"period": 1, "players": [{**OK_REPORT_PLAYER, **(player or {})}], **fields}


def _score(**fields: Any) -> dict[str, Any]:
    return {"players": [{"id": "a", **fields}]}


def _gain(**fields: Any) -> dict[str, Any]:
    return {"gains": [{**GAIN, **fields}]}


def _res(**resources: Any) -> dict[str, Any]:
    return {"gains": [{"source": {"kind": "action_space"}, "resources": resources}]}


CASES = [
    # POST /v1/calculations/vatican-report
    v422("vr-period-0", "POST", VR, ("body", "period"), body=_vr(period=0)),
    v422("vr-period-4", "POST", VR, ("body", "period"), body=_vr(period=4)),
    v422("vr-period-string", "POST", VR, ("body", "period"), body=_vr(period="1")),
    v422("vr-period-float", "POST", VR, ("body", "period"), body=_vr(period=1.0)),
    v422("vr-period-bool", "POST", VR, ("body", "period"), body=_vr(period=True)),
    v422("vr-period-null", "POST", VR, ("body", "period"), body=_vr(period=None)),
    v422("vr-period-missing", "POST", VR, ("body", "period"), body={"players": [OK_REPORT_PLAYER]}),
    v422("vr-tile-unknown", "POST", VR, ("body", "tile_id"), body=_vr(tile_id="IV-1")),
    v422("vr-tile-wrong-period", "POST", VR, ("body", "tile_id"), body=_vr(tile_id="II-1")),
    v422("vr-tile-int", "POST", VR, ("body", "tile_id"), body=_vr(tile_id=2)),
    v422("vr-players-empty", "POST", VR, ("body", "players"), body=_vr(players=[])),
    v422(
        "vr-players-6",
        "POST",
        VR,
        ("body", "players"),
        body=_vr(players=[{"id": f"p{i}", "faith": 0} for i in range(6)]),
    ),
    v422(
        "vr-players-duplicate",
        "POST",
        VR,
        ("body", "players", 1, "id"),
        body=_vr(players=[{"id": "a", "faith": 0}, {"id": "a", "faith": 0}]),
    ),
    v422("vr-players-object", "POST", VR, ("body", "players"), body=_vr(players={"a": 1})),
    v422("vr-player-array", "POST", VR, ("body", "players", 0), body=_vr(players=[["a", 1]])),
    v422("vr-faith-negative", "POST", VR, ("body", "players", 0, "faith"), body=_vr({"faith": -1})),
    v422("vr-faith-10**6", "POST", VR, ("body", "players", 0, "faith"), body=_vr({"faith": 10**6})),
    # R-FT-4: the stored game's bound
    v422("vr-faith-1001", "POST", VR, ("body", "players", 0, "faith"), body=_vr({"faith": 1001})),
    v422("vr-faith-2**63", "POST", VR, ("body", "players", 0, "faith"), body=_vr({"faith": 2**63})),
    v422("vr-faith-float", "POST", VR, ("body", "players", 0, "faith"), body=_vr({"faith": 1.5})),
    v422("vr-faith-string", "POST", VR, ("body", "players", 0, "faith"), body=_vr({"faith": "1"})),
    v422("vr-faith-null", "POST", VR, ("body", "players", 0, "faith"), body=_vr({"faith": None})),
    v422(
        "vr-leader-unknown",
        "POST",
        VR,
        ("body", "players", 0, "leaders", 0),
        body=_vr({"leaders": ["pope"]}),
    ),
    v422(  # R-PLY-2, as at a game's creation
        "vr-leaders-twice",
        "POST",
        VR,
        ("body", "players", 0, "leaders"),
        body=_vr({"leaders": ["sisto_iv", "sisto_iv"]}),
    ),
    v422(
        "vr-leaders-string",
        "POST",
        VR,
        ("body", "players", 0, "leaders"),
        body=_vr({"leaders": "sisto_iv"}),
    ),
    v422(
        "vr-choice-unknown",
        "POST",
        VR,
        ("body", "players", 0, "choice"),
        body=_vr({"choice": "maybe"}),
    ),
    v422(
        "vr-choice-case",
        "POST",
        VR,
        ("body", "players", 0, "choice"),
        body=_vr({"choice": "Support"}),
    ),
    v422("vr-id-empty", "POST", VR, ("body", "players", 0, "id"), body=_vr({"id": ""})),
    v422(
        "vr-id-very-long", "POST", VR, ("body", "players", 0, "id"), body=_vr({"id": "a" * 10_000})
    ),
    v422("vr-unknown-field", "POST", VR, ("body", "round"), body=_vr(round=2)),
    v422("vr-unknown-nested-field", "POST", VR, ("body", "players", 0, "vp"), body=_vr({"vp": 3})),
    v422(
        "vr-eligible-without-choice",
        "POST",
        VR,
        ("body", "players", 0, "choice"),
        body=_vr({"faith": 5}),
    ),
    raw("vr-json-truncated", "POST", VR, b'{"period": 1, "players": [', ("body", 26)),
    raw("vr-deep-array", "POST", VR, deep_array(), None),
    case("vr-too-large", "POST", VR, 413, "payload-too-large", content=big_body(), headers=JSON_CT),
    case("vr-get", "GET", VR, 405, "method-not-allowed"),
    # POST /v1/calculations/gains
    v422("gains-empty", "POST", GAINS, ("body", "gains"), body={"gains": []}),
    v422("gains-missing", "POST", GAINS, ("body", "gains"), body={}),
    v422("gains-gains-object", "POST", GAINS, ("body", "gains"), body={"gains": GAIN}),
    v422(
        "gains-excommunications-string",
        "POST",
        GAINS,
        ("body", "excommunications"),
        body={"excommunications": "I-2", "gains": [GAIN]},
    ),
    v422(
        "gains-excommunication-unknown",
        "POST",
        GAINS,
        ("body", "excommunications", 0),
        body={"excommunications": ["IV-9"], "gains": [GAIN]},
    ),
    v422(
        "gains-excommunications-same-period",
        "POST",
        GAINS,
        ("body", "excommunications", 1),
        body={"excommunications": ["I-1", "I-2"], "gains": [GAIN]},
    ),
    v422(
        "gains-excommunications-4",
        "POST",
        GAINS,
        ("body", "excommunications"),
        body={"excommunications": ["I-1", "II-1", "III-1", "I-2"], "gains": [GAIN]},
    ),
    v422(
        "gains-excommunications-null",
        "POST",
        GAINS,
        ("body", "excommunications"),
        body={"excommunications": None, "gains": [GAIN]},
    ),
    v422(
        "gains-leader-unknown",
        "POST",
        GAINS,
        ("body", "leaders", 0),
        body={"leaders": ["lorenzo"], "gains": [GAIN]},
    ),
    v422(  # R-PLY-2
        "gains-leaders-twice",
        "POST",
        GAINS,
        ("body", "leaders"),
        body={"leaders": ["santa_rita", "santa_rita"], "gains": [GAIN]},
    ),
    v422(
        "gains-source-kind-unknown",
        "POST",
        GAINS,
        ("body", "gains", 0, "source", "kind"),
        body=_gain(source={"kind": "theft"}),
    ),
    v422(
        "gains-source-unknown-field",
        "POST",
        GAINS,
        ("body", "gains", 0, "source", "owner"),
        body=_gain(source={"kind": "leader", "owner": "x"}),
    ),
    v422(
        "gains-source-name-long",
        "POST",
        GAINS,
        ("body", "gains", 0, "source", "name"),
        body=_gain(source={"kind": "leader", "name": "n" * 5000}),
    ),
    v422(
        "gains-resource-unknown",
        "POST",
        GAINS,
        ("body", "gains", 0, "resources", "gold"),
        body=_res(gold=1),
    ),
    v422(
        "gains-resource-negative",
        "POST",
        GAINS,
        ("body", "gains", 0, "resources", "coins"),
        body=_res(coins=-1),
    ),
    v422(
        "gains-resource-float",
        "POST",
        GAINS,
        ("body", "gains", 0, "resources", "wood"),
        body=_res(wood=1.0),
    ),
    v422(
        "gains-resource-bool",
        "POST",
        GAINS,
        ("body", "gains", 0, "resources", "stone"),
        body=_res(stone=True),
    ),
    v422(
        "gains-resource-string",
        "POST",
        GAINS,
        ("body", "gains", 0, "resources", "servants"),
        body=_res(servants="2"),
    ),
    v422(
        "gains-resource-10**6",
        "POST",
        GAINS,
        ("body", "gains", 0, "resources", "victory_points"),
        body=_res(victory_points=10**6),
    ),
    v422(
        "gains-resource-10**100",
        "POST",
        GAINS,
        ("body", "gains", 0, "resources", "faith_points"),
        body=_res(faith_points=10**100),
    ),
    v422(
        "gains-resources-array",
        "POST",
        GAINS,
        ("body", "gains", 0, "resources"),
        body={"gains": [{"source": {"kind": "leader"}, "resources": [1]}]},
    ),
    v422(
        "gains-privileges-not-card-immediate",
        "POST",
        GAINS,
        ("body", "gains", 0, "privileges"),
        body=_gain(privileges=[{"coins": 2}]),
    ),
    v422(
        "gains-privilege-unknown-resource",
        "POST",
        GAINS,
        ("body", "gains", 0, "privileges", 0, "gems"),
        body=_gain(source={"kind": "card_immediate"}, privileges=[{"gems": 2}]),
    ),
    v422(
        "gains-wood-or-stone-iron",
        "POST",
        GAINS,
        ("body", "gains", 0, "wood_or_stone"),
        body=_gain(wood_or_stone="iron"),
    ),
    v422(
        "gains-unknown-field",
        "POST",
        GAINS,
        ("body", "player"),
        body={"player": "a", "gains": [GAIN]},
    ),
    # POST /v1/calculations/action-value
    v422("av-action-unknown", "POST", AV, ("body", "action"), body=_av(action="fly")),
    v422("av-origin-missing", "POST", AV, ("body", "origin"), body={"action": "harvest"}),
    v422(
        "av-family-member-unknown",
        "POST",
        AV,
        ("body", "family_member"),
        body=_av(family_member="purple"),
    ),
    v422("av-die-0", "POST", AV, ("body", "die"), body=_av(die=0)),
    v422("av-die-7", "POST", AV, ("body", "die"), body=_av(die=7)),
    v422("av-die-float", "POST", AV, ("body", "die"), body=_av(die=3.0)),
    v422("av-die-string", "POST", AV, ("body", "die"), body=_av(die="3")),
    v422("av-die-bool", "POST", AV, ("body", "die"), body=_av(die=True)),
    v422(
        "av-base-value-negative",
        "POST",
        AV,
        ("body", "base_value"),
        body=_av(origin="card_effect", base_value=-1),
    ),
    v422(
        "av-servants-negative", "POST", AV, ("body", "servants_spent"), body=_av(servants_spent=-1)
    ),
    v422(
        "av-servants-2**63", "POST", AV, ("body", "servants_spent"), body=_av(servants_spent=2**63)
    ),
    v422("av-modifier-10**100", "POST", AV, ("body", "modifier"), body=_av(modifier=-(10**100))),
    v422("av-required-float", "POST", AV, ("body", "required_value"), body=_av(required_value=1.5)),
    v422("av-large-space-int", "POST", AV, ("body", "large_space"), body=_av(large_space=1)),
    v422(
        "av-large-space-string", "POST", AV, ("body", "large_space"), body=_av(large_space="true")
    ),
    v422(
        "av-excommunications-null",
        "POST",
        AV,
        ("body", "excommunications"),
        body=_av(excommunications=None),
    ),
    v422("av-unknown-field", "POST", AV, ("body", "player_id"), body=_av(player_id="a")),
    # POST /v1/calculations/placement-order
    v422("order-players-empty", "POST", ORDER, ("body", "players"), body={"players": []}),
    v422(
        "order-players-6",
        "POST",
        ORDER,
        ("body", "players"),
        body={"players": [{"id": f"p{i}"} for i in range(6)]},
    ),
    v422(
        "order-players-duplicate",
        "POST",
        ORDER,
        ("body", "players"),
        body={"players": [{"id": "a"}, {"id": "a"}]},
    ),
    v422(
        "order-family-members-negative",
        "POST",
        ORDER,
        ("body", "players", 0, "family_members"),
        body={"players": [{"id": "a", "family_members": -1}]},
    ),
    v422(
        "order-family-members-float",
        "POST",
        ORDER,
        ("body", "players", 0, "family_members"),
        body={"players": [{"id": "a", "family_members": 2.5}]},
    ),
    v422(
        "order-family-members-huge",
        "POST",
        ORDER,
        ("body", "players", 0, "family_members"),
        body={"players": [{"id": "a", "family_members": 10**6}]},
    ),
    v422(
        "order-excommunication-unknown",
        "POST",
        ORDER,
        ("body", "players", 0, "excommunications", 0),
        body={"players": [{"id": "a", "excommunications": ["X-1"]}]},
    ),
    v422(
        "order-unknown-nested-field",
        "POST",
        ORDER,
        ("body", "players", 0, "colour"),
        body={"players": [{"id": "a", "colour": "red"}]},
    ),
    # POST /v1/calculations/final-scores
    v422(
        "final-territories-7",
        "POST",
        FINAL,
        ("body", "players", 0, "territories"),
        body=_score(territories=7),
    ),
    v422(
        "final-characters-negative",
        "POST",
        FINAL,
        ("body", "players", 0, "characters"),
        body=_score(characters=-1),
    ),
    v422(
        "final-vp-10**6",
        "POST",
        FINAL,
        ("body", "players", 0, "victory_points"),
        body=_score(victory_points=10**6),
    ),
    v422(
        "final-military-string",
        "POST",
        FINAL,
        ("body", "players", 0, "military_points"),
        body=_score(military_points="3"),
    ),
    v422(
        "final-resources-faith",
        "POST",
        FINAL,
        ("body", "players", 0, "resources", "faith_points"),
        body=_score(resources={"faith_points": 1}),
    ),
    v422(
        "final-building-costs-unknown",
        "POST",
        FINAL,
        ("body", "players", 0, "building_costs", "gold"),
        body=_score(building_costs={"gold": 1}),
    ),
    v422(
        "final-building-costs-array",
        "POST",
        FINAL,
        ("body", "players", 0, "building_costs"),
        body=_score(building_costs=[1, 2]),
    ),
    v422("final-id-missing", "POST", FINAL, ("body", "players", 0, "id"), body={"players": [{}]}),
    v422(
        "final-players-duplicate",
        "POST",
        FINAL,
        ("body", "players"),
        body={"players": [{"id": "a"}, {"id": "a"}]},
    ),
    case(
        "final-too-large-chunked",
        "POST",
        FINAL,
        413,
        "payload-too-large",
        stream=big_body(),
        headers=JSON_CT,
    ),
    # calculations that do not exist
    case("calc-unknown", "POST", "/v1/calculations/nope", 404, "not-found", body={}),
    case("calc-root", "GET", "/v1/calculations", 404, "not-found"),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_stateless(run_stateless_case: CaseRunner, c: Case) -> None:
    """Calculations: a problem, and nothing stored."""
    await run_stateless_case(c)
