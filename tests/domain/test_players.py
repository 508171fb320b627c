"""R-PLY-1, R-PLY-2 and R-FT-4: who sits at a table, the leaders each holds, and the faith a
client sends, declared once for stored games and calculations alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from app.api.schemas.calculations import GainsCalculation, ReportPlayerIn
from app.api.schemas.games import FaithBatchUpdate, FaithUpdate, LeadersUpdate, PlayerCreate
from app.domain import game as rules
from app.domain.errors import InvalidInput
from app.domain.faith import MAX_FAITH_SENT
from app.domain.game import NewPlayer
from app.domain.players import HOUSES_OF_RENAISSANCE
from app.domain.report import ReportPlayer, resolve_report
from app.domain.tiles import Catalogue
from app.services.tile_packs import load_catalogue
from tests.domain.stored_games import Table
from tests.support.tile_packs import hor_pack

NAMES = ("Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio")


def create(catalogue: Catalogue, count: int, expansions: list[str]) -> rules.GameEvent:
    return rules.create_game(
        catalogue,
        [NewPlayer(name) for name in NAMES[:count]],
        expansions,
        seed=42,
        tiles=None,
        players_enter_faith=False,
        random_seed=0,
    )


def refusal(model: type[BaseModel], body: dict[str, Any]) -> list[tuple[Any, ...]]:
    with pytest.raises(ValidationError) as refused:
        model.model_validate(body)
    return [error["loc"] for error in refused.value.errors()]


@pytest.mark.parametrize("count", [2, 3, 4])
def test_r_ply_1_the_base_game_seats_two_to_four(catalogue: Catalogue, count: int) -> None:
    assert len(create(catalogue, count, ["base"]).data["players"]) == count


def test_r_ply_1_a_fifth_seat_needs_houses_of_renaissance(
    catalogue: Catalogue, tmp_path: Path
) -> None:
    with pytest.raises(InvalidInput, match="Houses of Renaissance") as refused:
        create(catalogue, 5, ["base"])
    assert refused.value.loc == ("players",)
    with_hor = load_catalogue(hor_pack(tmp_path))
    created = create(with_hor, 5, ["base", HOUSES_OF_RENAISSANCE])
    assert [p["id"] for p in created.data["players"]] == ["p1", "p2", "p3", "p4", "p5"]


@pytest.mark.parametrize("count", [0, 1, 6])
def test_r_ply_1_no_table_seats_fewer_than_two_or_more_than_five(
    catalogue: Catalogue, tmp_path: Path, count: int
) -> None:
    with pytest.raises(InvalidInput) as refused:
        create(load_catalogue(hor_pack(tmp_path)), count, ["base", HOUSES_OF_RENAISSANCE])
    assert refused.value.loc == ("players",)


def test_r_ply_2_a_leader_held_twice_is_refused_by_the_stored_game(
    catalogue: Catalogue,
) -> None:
    twice = [NewPlayer("Anna"), NewPlayer("Bruno", ("sisto_iv", "santa_rita", "sisto_iv"))]
    with pytest.raises(InvalidInput, match="twice") as refused:
        rules.create_game(
            catalogue, twice, ["base"], seed=1, tiles=None, players_enter_faith=False, random_seed=0
        )
    assert refused.value.loc == ("players", 1, "leaders")
    with pytest.raises(InvalidInput, match="twice"):
        Table().play(rules.set_leaders, "p1", ["santa_rita", "santa_rita"])


def test_r_ply_2_a_leader_held_twice_is_refused_by_every_schema_of_a_players_leaders() -> None:
    twice = ["sisto_iv", "sisto_iv"]
    report_player = {"id": "anna", "faith": 3}
    assert refusal(ReportPlayerIn, {**report_player, "leaders": twice}) == [("leaders",)]
    gains = {"gains": [{"source": {"kind": "action_space"}}]}
    assert refusal(GainsCalculation, {**gains, "leaders": twice}) == [("leaders",)]
    assert refusal(PlayerCreate, {"name": "Anna", "leaders": twice}) == [("leaders",)]
    assert refusal(LeadersUpdate, {"leaders": twice}) == [("leaders",)]
    ReportPlayerIn.model_validate({**report_player, "leaders": ["sisto_iv", "santa_rita"]})


def test_r_ft_4_one_faith_bound_for_stored_games_and_calculations() -> None:
    assert FaithUpdate.model_validate({"faith": MAX_FAITH_SENT}).faith == MAX_FAITH_SENT
    too_much = MAX_FAITH_SENT + 1
    assert refusal(FaithUpdate, {"faith": too_much}) == [("faith",)]
    assert refusal(FaithBatchUpdate, {"faith": {"p1": too_much}}) == [("faith", "p1")]
    assert refusal(ReportPlayerIn, {"id": "anna", "faith": too_much}) == [("faith",)]
    assert refusal(ReportPlayerIn, {"id": "anna", "faith": -1}) == [("faith",)]


def test_r_ft_4_the_rules_refuse_faith_above_the_bound_themselves() -> None:
    with pytest.raises(InvalidInput) as refused:
        Table().play(rules.set_faith, {"p2": MAX_FAITH_SENT + 1})
    assert refused.value.loc == ("faith", "p2")
    with pytest.raises(InvalidInput) as refused:
        resolve_report(1, "I-1", [ReportPlayer("a", MAX_FAITH_SENT + 1)], "support")
    assert refused.value.loc == ("players", 0, "faith")
    kept = Table().logged(rules.set_faith, {"p2": MAX_FAITH_SENT})
    assert kept.data["changes"][0]["lost"] == MAX_FAITH_SENT - 15
