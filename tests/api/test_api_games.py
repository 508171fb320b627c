"""API.md "Games": create, read, tokens, faith, leaders, turn order, If-Match, versions,
events, gain adjustments and final scores of a stored game, on both databases. After
every rejected change the game, its reports and its event log are checked unchanged."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from app.persistence.tables import GAMES
from tests.api.conftest import GameHandle, create_game
from tests.api.test_api_support import (
    assert_gains_explained,
    assert_problem,
    assert_scores_explained,
    assert_unchanged,
    events,
    snapshot,
)

THREE = [{"name": "Anna", "leaders": ["sisto_iv"]}, {"name": "Bruno"}, {"name": "Carla"}]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def count_games(app: FastAPI) -> int:
    with app.state.db.transaction(write=False) as connection:
        return int(connection.scalar(select(func.count()).select_from(GAMES)) or 0)


# ---- create ----------------------------------------------------------------------------


async def test_create_game_answers_201_with_location_etag_tokens_and_the_game(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    response = await client.post("/v1/games", json={"players": THREE, "seed": 42})
    assert response.status_code == 201, response.text
    body = response.json()
    game = body["game"]
    assert response.headers["location"] == f"/v1/games/{game['id']}"
    assert response.headers["etag"] == '"1"'
    assert set(body["player_tokens"]) == {"p1", "p2", "p3"}
    tokens = [body["host_token"], *body["player_tokens"].values()]
    assert len(set(tokens)) == 4 and all(isinstance(t, str) and len(t) >= 32 for t in tokens)
    assert game["version"] == 1 and game["seed"] == 42 and game["expansions"] == ["base"]
    assert {k: t["id"] for k, t in game["tiles"].items()} == {"1": "I-6", "2": "II-3", "3": "III-7"}
    tile = (await client.get("/v1/excommunication-tiles/I-6")).json()
    assert game["tiles"]["1"] == tile
    assert game["turn_order"] == ["p1", "p2", "p3"]
    assert game["players"] == [
        {
            "id": f"p{i + 1}",
            "name": p["name"],
            "faith": 0,
            "report_victory_points": 0,
            "leaders": p.get("leaders", []),
            "excommunications": [],
        }
        for i, p in enumerate(THREE)
    ]
    assert game["reports"] == [
        {"period": 1, "status": "open", "threshold": 3},
        {"period": 2, "status": "open", "threshold": 4},
        {"period": 3, "status": "open", "threshold": 5},
    ]
    assert count_games(app) == 1
    read = await client.get(response.headers["location"], headers=bearer(body["host_token"]))
    assert read.json() == game


async def test_tokens_are_stored_hashed_never_readable(
    client: httpx.AsyncClient, app: FastAPI, game: GameHandle
) -> None:
    with app.state.db.transaction(write=False) as connection:
        stored = connection.execute(select(GAMES).where(GAMES.c.id == game.id)).one_or_none()
        assert stored is not None
        assert stored.host_token_hash == hashlib.sha256(game.host_token.encode()).hexdigest()
        hashes = dict(stored.player_token_hashes)
        # Everything the row holds: the state, the read model, the hashes.
        dump = repr(tuple(stored))
    for player_id, token in game.player_tokens.items():
        assert hashes[player_id] == hashlib.sha256(token.encode()).hexdigest()
    for token in [game.host_token, *game.player_tokens.values()]:
        assert token not in dump


async def test_create_without_seed_draws_from_a_random_seed_it_returns(
    client: httpx.AsyncClient,
) -> None:
    handle = await create_game(client, seed=None)
    seed = handle.game["seed"]
    assert isinstance(seed, int)
    draw = (await client.post("/v1/tile-draws", json={"seed": seed})).json()
    assert {k: t["id"] for k, t in handle.game["tiles"].items()} == draw["tiles"]


async def test_r_draw_3_named_tiles(client: httpx.AsyncClient) -> None:
    handle = await create_game(
        client, seed=None, tiles={"1": "I-4", "2": "II-7", "3": "III-4"}, players_enter_faith=True
    )
    assert handle.game["seed"] is None
    assert {k: t["id"] for k, t in handle.game["tiles"].items()} == {
        "1": "I-4",
        "2": "II-7",
        "3": "III-4",
    }
    assert handle.game["tiles"]["2"]["effect"] == {"kind": "skip_first_turn"}
    assert handle.game["players_enter_faith"] is True


CREATE_INVALID_CASES: list[tuple[dict[str, Any], str, list[Any] | None]] = [
    ({"players": THREE, "seed": 1, "tiles": {"1": "I-1", "2": "II-1", "3": "III-1"}}, "v", None),
    ({"players": THREE, "tiles": {"1": "II-1", "2": "II-2", "3": "III-1"}}, "v", ["tiles", "1"]),
    ({"players": THREE, "tiles": {"1": "I-1", "2": "II-9", "3": "III-1"}}, "v", ["tiles", "2"]),
    ({"players": THREE, "tiles": {"1": "I-1", "2": "II-1"}}, "v", ["tiles", "3"]),
    ({"players": [{"name": "Anna"}, {"name": "anna"}]}, "v", ["players", 1, "name"]),
    ({"players": [{"name": "Anna"}, {"name": "Anna"}]}, "v", ["players", 1, "name"]),
    ({"players": [{"name": "Anna"}]}, "v", ["body", "players"]),
    ({"players": [{"name": f"P{i}"} for i in range(6)]}, "v", ["body", "players"]),
    ({"players": []}, "v", ["body", "players"]),
    ({"players": [{"name": ""}, {"name": "B"}]}, "v", ["players", 0, "name"]),
    ({"players": [{"name": "A", "leaders": ["pico"]}, {"name": "B"}]}, "v", None),
    (
        {"players": [{"name": "A", "leaders": ["sisto_iv", "sisto_iv"]}, {"name": "B"}]},
        "v",
        ["players", 0, "leaders"],
    ),
    ({"players": THREE, "seed": "42"}, "v", ["body", "seed"]),
    ({"players": THREE, "seed": -1}, "v", ["body", "seed"]),
    ({"players": THREE, "colour": "red"}, "v", ["body", "colour"]),
    ({"players": THREE, "players_enter_faith": "yes"}, "v", ["body", "players_enter_faith"]),
    ({"players": THREE, "expansions": ["base", "atlantis"]}, "u", ["expansions", 1]),
    ({"players": THREE, "expansions": ["atlantis"]}, "u", None),
    ({"players": THREE, "expansions": []}, "v", ["body", "expansions"]),
]


async def test_create_game_invalid_input_creates_nothing(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    for body, kind, loc in CREATE_INVALID_CASES:
        slug = "unknown-expansion" if kind == "u" else "validation-error"
        response = await client.post("/v1/games", json=body)
        assert_problem(response, 422, slug, loc=loc)
    assert count_games(app) == 0


# ---- read and tokens -------------------------------------------------------------------


async def test_read_with_host_and_player_tokens(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    host = await client.get(game.url, headers=game.host())
    assert host.status_code == 200 and host.headers["etag"] == '"1"'
    for player_id in ("p1", "p2", "p3"):
        player = await client.get(game.url, headers=game.player(player_id))
        assert player.status_code == 200
        assert player.json() == host.json() == game.game


async def test_read_without_or_with_a_foreign_token_is_401(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    other = await create_game(client)
    for headers in (
        {},
        bearer("not-a-token"),
        bearer(other.host_token),
        bearer(other.player_tokens["p1"]),
        {"Authorization": f"Basic {game.host_token}"},
        {"Authorization": "Bearer "},
    ):
        assert_problem(await client.get(game.url, headers=headers), 401, "unauthorized")
        report = await client.get(f"{game.url}/reports/1", headers=headers)
        assert_problem(report, 401, "unauthorized")
        assert_problem(await client.get(f"{game.url}/events", headers=headers), 401, "unauthorized")


async def test_unknown_game_is_404(client: httpx.AsyncClient, game: GameHandle) -> None:
    url = "/v1/games/0123456789abcdef0123456789abcdef"
    assert_problem(await client.get(url, headers=game.host()), 404, "not-found")
    for method, path, body in (
        ("PUT", "/faith", {"faith": {"p1": 1}}),
        ("PUT", "/players/p1/faith", {"faith": 1}),
        ("PUT", "/players/p1/leaders", {"leaders": []}),
        ("PUT", "/turn-order", {"turn_order": ["p1", "p2"]}),
        ("GET", "/reports/1", None),
        ("PUT", "/reports/1/decisions/p1", {"choice": "support"}),
        ("POST", "/reports/1/resolution", {}),
        ("POST", "/players/p1/gain-adjustments", {"gains": [{"source": {"kind": "leader"}}]}),
        ("POST", "/final-scores", {"players": [{"id": "p1"}]}),
        ("GET", "/events", None),
    ):
        response = await client.request(method, url + path, json=body, headers=game.host())
        assert_problem(response, 404, "not-found")


async def test_unknown_player_is_404(client: httpx.AsyncClient, game: GameHandle) -> None:
    before = await snapshot(game)
    # Named in the body, an unknown player makes the body invalid (422 naming it).
    response = await client.put(
        game.url + "/faith", json={"faith": {"p1": 3, "p9": 1}}, headers=game.host()
    )
    assert_problem(response, 422, "validation-error", loc=["body", "faith", "p9"])
    for method, path, body in (
        ("PUT", "/players/p9/faith", {"faith": 1}),
        ("PUT", "/players/p9/leaders", {"leaders": []}),
        ("PUT", "/reports/1/decisions/p9", {"choice": "support"}),
        ("POST", "/players/p9/gain-adjustments", {"gains": [{"source": {"kind": "leader"}}]}),
    ):
        response = await client.request(method, game.url + path, json=body, headers=game.host())
        assert_problem(response, 404, "not-found")
    await assert_unchanged(game, before)


async def test_if_none_match_current_version_is_304(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    response = await client.get(game.url, headers={**game.host(), "If-None-Match": '"1"'})
    assert response.status_code == 304 and response.content == b""
    assert response.headers["etag"] == '"1"'
    await game.set_faith(p1=2)
    stale = await client.get(game.url, headers={**game.host(), "If-None-Match": '"1"'})
    assert stale.status_code == 200 and stale.headers["etag"] == '"2"'
    assert stale.json()["version"] == 2
    fresh = await client.get(game.url, headers={**game.host(), "If-None-Match": '"1", "2"'})
    assert fresh.status_code == 304
    # Without a valid token there is no 304: the caller learns nothing.
    anonymous = await client.get(game.url, headers={"If-None-Match": '"2"'})
    assert_problem(anonymous, 401, "unauthorized")


# ---- faith -----------------------------------------------------------------------------


async def test_r_ft_2_single_faith_above_15_is_stored_as_15(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    response = await client.put(
        f"{game.url}/players/p2/faith", json={"faith": 20}, headers=game.host()
    )
    assert response.status_code == 200, response.text
    assert response.headers["etag"] == '"2"'
    assert response.json() == {
        "player": {
            "id": "p2",
            "name": "Bruno",
            "faith": 15,
            "report_victory_points": 0,
            "leaders": [],
            "excommunications": [],
        },
        "faith_lost": 5,
    }
    response = await client.put(
        f"{game.url}/players/p2/faith", json={"faith": 7}, headers=game.host()
    )
    assert response.json()["faith_lost"] == 0 and response.json()["player"]["faith"] == 7
    state = await game.read()
    assert state["version"] == 3
    assert [p["faith"] for p in state["players"]] == [0, 7, 0]


async def test_r_ft_2_batch_faith_in_one_change(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    response = await client.put(
        f"{game.url}/faith", json={"faith": {"p1": 3, "p3": 17}}, headers=game.host()
    )
    assert response.status_code == 200, response.text
    assert response.headers["etag"] == '"2"'
    body = response.json()
    assert body["faith_lost"] == {"p1": 0, "p3": 2}
    assert [(p["id"], p["faith"]) for p in body["players"]] == [("p1", 3), ("p3", 15)]
    state = await game.read()
    assert state["version"] == 2 and [p["faith"] for p in state["players"]] == [3, 0, 15]
    log = await events(game)
    assert log[-1]["type"] == "faith_set"
    assert log[-1]["data"] == {
        "changes": [
            {"player_id": "p1", "from": 0, "to": 3, "lost": 0},
            {"player_id": "p3", "from": 0, "to": 15, "lost": 2},
        ]
    }


async def test_faith_rights_without_players_enter_faith(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    before = await snapshot(game)
    own = await client.put(
        f"{game.url}/players/p1/faith", json={"faith": 3}, headers=game.player("p1")
    )
    assert_problem(own, 403, "forbidden")
    other = await client.put(
        f"{game.url}/players/p2/faith", json={"faith": 3}, headers=game.player("p1")
    )
    assert_problem(other, 403, "forbidden")
    batch = await client.put(
        f"{game.url}/faith", json={"faith": {"p1": 3}}, headers=game.player("p1")
    )
    assert_problem(batch, 403, "forbidden")
    await assert_unchanged(game, before)


async def test_faith_rights_with_players_enter_faith(client: httpx.AsyncClient) -> None:
    handle = await create_game(client, players_enter_faith=True)
    own = await client.put(
        f"{handle.url}/players/p2/faith", json={"faith": 16}, headers=handle.player("p2")
    )
    assert own.status_code == 200, own.text
    assert own.json()["player"]["faith"] == 15 and own.json()["faith_lost"] == 1
    before = await snapshot(handle)
    other = await client.put(
        f"{handle.url}/players/p1/faith", json={"faith": 3}, headers=handle.player("p2")
    )
    assert_problem(other, 403, "forbidden")
    batch = await client.put(
        f"{handle.url}/faith", json={"faith": {"p2": 3}}, headers=handle.player("p2")
    )
    assert_problem(batch, 403, "forbidden")
    await assert_unchanged(handle, before)
    host = await client.put(
        f"{handle.url}/players/p1/faith", json={"faith": 4}, headers=handle.host()
    )
    assert host.status_code == 200 and host.json()["player"]["faith"] == 4


async def test_faith_invalid_input_changes_nothing(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    await game.set_faith(p1=4)
    before = await snapshot(game)
    for path, body, loc in (
        ("/players/p1/faith", {"faith": -1}, ["body", "faith"]),
        ("/players/p1/faith", {"faith": 3.0}, ["body", "faith"]),
        ("/players/p1/faith", {"faith": "3"}, ["body", "faith"]),
        ("/players/p1/faith", {}, ["body", "faith"]),
        ("/players/p1/faith", {"faith": 3, "lost": 0}, ["body", "lost"]),
        ("/faith", {"faith": {"p1": 2, "p2": -1}}, ["body", "faith", "p2"]),
        ("/faith", {"faith": {}}, ["body", "faith"]),
        ("/faith", {"faith": [1, 2]}, ["body", "faith"]),
    ):
        response = await client.put(game.url + path, json=body, headers=game.host())
        assert_problem(response, 422, "validation-error", loc=loc)
    await assert_unchanged(game, before)


# ---- leaders and turn order ------------------------------------------------------------


async def test_leaders_host_only(client: httpx.AsyncClient, game: GameHandle) -> None:
    url = f"{game.url}/players/p2/leaders"
    before = await snapshot(game)
    for who in ("p2", "p1"):
        denied = await client.put(url, json={"leaders": ["sisto_iv"]}, headers=game.player(who))
        assert_problem(denied, 403, "forbidden")
    for body, loc in (
        ({"leaders": ["sisto_iv", "sisto_iv"]}, ["leaders"]),
        ({"leaders": ["lorenzo"]}, ["body", "leaders", 0]),
        ({"leaders": "sisto_iv"}, ["body", "leaders"]),
        ({}, ["body", "leaders"]),
    ):
        assert_problem(
            await client.put(url, json=body, headers=game.host()), 422, "validation-error", loc=loc
        )
    await assert_unchanged(game, before)
    response = await client.put(
        url, json={"leaders": ["santa_rita", "martin_lutero"]}, headers=game.host()
    )
    assert response.status_code == 200, response.text
    assert response.headers["etag"] == '"2"'
    assert response.json() == {
        "id": "p2",
        "name": "Bruno",
        "faith": 0,
        "report_victory_points": 0,
        "leaders": ["santa_rita", "martin_lutero"],
        "excommunications": [],
    }
    log = await events(game)
    assert (log[-1]["type"], log[-1]["data"]) == (
        "leaders_set",
        {"player_id": "p2", "from": [], "to": ["santa_rita", "martin_lutero"]},
    )


async def test_turn_order_host_only_and_a_permutation(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    url = f"{game.url}/turn-order"
    before = await snapshot(game)
    denied = await client.put(
        url, json={"turn_order": ["p3", "p1", "p2"]}, headers=game.player("p1")
    )
    assert_problem(denied, 403, "forbidden")
    for order in (["p1", "p1", "p2"], ["p1", "p2"], ["p1", "p2", "p9"], ["p1", "p2", "p3", "p3"]):
        response = await client.put(url, json={"turn_order": order}, headers=game.host())
        assert_problem(response, 422, "validation-error", loc=["turn_order"])
    await assert_unchanged(game, before)
    response = await client.put(url, json={"turn_order": ["p3", "p1", "p2"]}, headers=game.host())
    assert response.status_code == 200, response.text
    assert response.headers["etag"] == '"2"'
    body = response.json()
    assert body["turn_order"] == ["p3", "p1", "p2"] and body["version"] == 2
    assert [p["id"] for p in body["players"]] == ["p1", "p2", "p3"]
    log = await events(game)
    assert (log[-1]["type"], log[-1]["data"]) == (
        "turn_order_set",
        {"from": ["p1", "p2", "p3"], "to": ["p3", "p1", "p2"]},
    )


# ---- If-Match and versions -------------------------------------------------------------


async def test_if_match_stale_is_412_and_current_succeeds(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    url = f"{game.url}/players/p1/faith"
    ok = await client.put(url, json={"faith": 1}, headers={**game.host(), "If-Match": '"1"'})
    assert ok.status_code == 200 and ok.headers["etag"] == '"2"'
    before = await snapshot(game)
    changes = (
        ("PUT", "/players/p1/faith", {"faith": 5}),
        ("PUT", "/faith", {"faith": {"p1": 6}}),
        ("PUT", "/players/p1/leaders", {"leaders": []}),
        ("PUT", "/turn-order", {"turn_order": ["p2", "p1", "p3"]}),
        ("PUT", "/reports/1/decisions/p1", {"choice": "support"}),
        ("POST", "/reports/1/resolution", {"default_choice": "support"}),
    )
    for method, path, body in changes:
        for stale in ('"1"', '"3"', "garbage", '"-1"'):
            response = await client.request(
                method, game.url + path, json=body, headers={**game.host(), "If-Match": stale}
            )
            assert_problem(response, 412, "version-mismatch")
    await assert_unchanged(game, before)
    version = 2
    for index, (method, path, body) in enumerate(changes):
        tag = f'W/"{version}"' if index % 2 else f'"{version}"'
        response = await client.request(
            method, game.url + path, json=body, headers={**game.host(), "If-Match": tag}
        )
        assert response.status_code in (200, 201), (path, tag, response.text)
        version += 1
        assert response.headers["etag"] == f'"{version}"'
    state = await game.read()
    assert state["version"] == version
    star = await client.put(
        f"{game.url}/players/p2/faith", json={"faith": 1}, headers={**game.host(), "If-Match": "*"}
    )
    assert star.status_code == 200 and star.headers["etag"] == f'"{version + 1}"'


async def test_412_is_checked_after_access(client: httpx.AsyncClient, game: GameHandle) -> None:
    url = f"{game.url}/players/p1/leaders"
    headers = {**game.player("p1"), "If-Match": '"9"'}
    assert_problem(await client.put(url, json={"leaders": []}, headers=headers), 403, "forbidden")
    no_token = await client.put(url, json={"leaders": []}, headers={"If-Match": '"9"'})
    assert_problem(no_token, 401, "unauthorized")


async def test_every_change_bumps_version_by_one_and_logs_one_event(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    steps: list[tuple[str, str, dict[str, Any], str]] = [
        ("PUT", "/players/p1/faith", {"faith": 6}, "faith_set"),
        ("PUT", "/faith", {"faith": {"p2": 1, "p3": 4}}, "faith_set"),
        ("PUT", "/players/p3/leaders", {"leaders": ["martin_lutero"]}, "leaders_set"),
        ("PUT", "/turn-order", {"turn_order": ["p2", "p3", "p1"]}, "turn_order_set"),
        ("PUT", "/reports/1/decisions/p1", {"choice": "refuse"}, "decision_set"),
        ("PUT", "/reports/1/decisions/p1", {"choice": "support"}, "decision_set"),
        ("POST", "/reports/1/resolution", {"default_choice": "refuse"}, "report_resolved"),
    ]
    for number, (method, path, body, _) in enumerate(steps, start=2):
        response = await client.request(method, game.url + path, json=body, headers=game.host())
        assert response.status_code in (200, 201), response.text
        assert response.headers["etag"] == f'"{number}"'
        assert (await game.read())["version"] == number
        # Reads and computations change nothing.
        await client.post(
            f"{game.url}/players/p1/gain-adjustments",
            json={"gains": [{"source": {"kind": "leader"}, "resources": {"coins": 1}}]},
            headers=game.host(),
        )
        assert (await game.read())["version"] == number
    log = await events(game)
    assert [e["seq"] for e in log] == list(range(1, len(steps) + 2))
    assert [e["type"] for e in log] == ["game_created", *(s[3] for s in steps)]
    assert log[0]["data"] == {
        "players": [
            {"id": "p1", "name": "Anna", "leaders": ["sisto_iv"]},
            {"id": "p2", "name": "Bruno", "leaders": []},
            {"id": "p3", "name": "Carla", "leaders": []},
        ],
        "expansions": ["base"],
        "seed": 42,
        "tiles": {"1": "I-6", "2": "II-3", "3": "III-7"},
        "players_enter_faith": False,
        "track_rounds": False,
    }
    assert log[5]["data"] == {"period": 1, "player_id": "p1", "choice": "refuse"}
    resolved = log[-1]["data"]
    assert resolved["period"] == 1 and resolved["default_choice"] == "refuse"
    assert [o["player_id"] for o in resolved["outcomes"]] == ["p2", "p3", "p1"]
    outcomes = {o["player_id"]: o for o in resolved["outcomes"]}
    assert outcomes["p1"]["outcome"] == "supported"
    assert outcomes["p1"]["victory_points"] == {"faith": 7, "sisto_iv": 5, "total": 12}
    assert outcomes["p2"]["outcome"] == "excommunicated" and outcomes["p2"]["tile_id"] == "I-6"
    assert outcomes["p3"]["outcome"] == "refused" and outcomes["p3"]["faith_after"] == 4
    for event in log:
        assert event["at"] and isinstance(event["at"], str)


async def test_events_after_paging(client: httpx.AsyncClient, game: GameHandle) -> None:
    for faith in range(1, 6):
        await game.set_faith(p1=faith)
    everything = await events(game)
    assert [e["seq"] for e in everything] == [1, 2, 3, 4, 5, 6]
    assert await events(game, after=0) == everything
    assert await events(game, after=4) == everything[4:]
    assert await events(game, after=6) == []
    assert await events(game, after=60) == []
    assert [e["data"]["changes"][0]["to"] for e in everything[1:]] == [1, 2, 3, 4, 5]
    by_player = await client.get(
        f"{game.url}/events", params={"after": 2}, headers=game.player("p3")
    )
    assert by_player.status_code == 200 and by_player.json()["events"] == everything[2:]
    for bad in ("-1", "x", "1.5"):
        response = await client.get(
            f"{game.url}/events", params={"after": bad}, headers=game.host()
        )
        assert_problem(response, 422, "validation-error", loc=["query", "after"])


# ---- gain adjustments and game final scores --------------------------------------------


async def played_game(client: httpx.AsyncClient) -> GameHandle:
    """Tiles I-2, II-6, III-4; Carla has Santa Rita. After three reports: p1 supported
    every time; p2 is excommunicated in I and III (I-2, III-4); p3 in I only (I-2)."""
    handle = await create_game(
        client,
        seed=None,
        tiles={"1": "I-2", "2": "II-6", "3": "III-4"},
        players=[
            {"name": "Anna", "leaders": ["sisto_iv"]},
            {"name": "Bruno"},
            {"name": "Carla", "leaders": ["santa_rita"]},
        ],
    )
    await handle.set_faith(p1=5, p2=0, p3=1)
    assert (await handle.resolve(1, default_choice="support")).status_code == 201
    await handle.set_faith(p1=4, p2=4, p3=6)
    assert (await handle.resolve(2, default_choice="support")).status_code == 201
    await handle.set_faith(p1=5, p2=2, p3=5)
    assert (await handle.resolve(3)).status_code == 201
    return handle


async def test_gain_adjustments_use_stored_excommunications_and_leaders(
    client: httpx.AsyncClient,
) -> None:
    handle = await played_game(client)
    state = await handle.read()
    assert {p["id"]: [e["tile_id"] for e in p["excommunications"]] for p in state["players"]} == {
        "p1": [],
        "p2": ["I-2", "III-4"],
        "p3": ["I-2"],
    }
    body = {"gains": [{"source": {"kind": "card_immediate"}, "resources": {"coins": 2}}]}
    results = {}
    for player_id in ("p1", "p2", "p3"):
        response = await client.post(
            f"{handle.url}/players/{player_id}/gain-adjustments",
            json=body,
            headers=handle.player(player_id),
        )
        assert response.status_code == 200, response.text
        assert_gains_explained(response.json())
        results[player_id] = response.json()["total"]
    # p3: Santa Rita doubles 2 coins to 4, then I-2 takes one (RULES.md R-GAIN-5).
    assert results == {"p1": {"coins": 2}, "p2": {"coins": 1}, "p3": {"coins": 3}}
    host = await client.post(
        f"{handle.url}/players/p3/gain-adjustments", json=body, headers=handle.host()
    )
    assert host.json()["total"] == {"coins": 3}
    before = await snapshot(handle)
    other = await client.post(
        f"{handle.url}/players/p3/gain-adjustments", json=body, headers=handle.player("p2")
    )
    assert_problem(other, 403, "forbidden")
    anonymous = await client.post(f"{handle.url}/players/p3/gain-adjustments", json=body)
    assert_problem(anonymous, 401, "unauthorized")
    for bad, loc in (
        ({**body, "excommunications": ["I-1"]}, ["body", "excommunications"]),
        ({**body, "leaders": ["santa_rita"]}, ["body", "leaders"]),
        ({"gains": []}, ["body", "gains"]),
    ):
        response = await client.post(
            f"{handle.url}/players/p3/gain-adjustments", json=bad, headers=handle.host()
        )
        assert_problem(response, 422, "validation-error", loc=loc)
    await assert_unchanged(handle, before)


async def test_game_final_scores_apply_stored_excommunications(client: httpx.AsyncClient) -> None:
    handle = await played_game(client)
    players = [
        {"id": "p2", "victory_points": 26, "territories": 3},
        {"id": "p1", "victory_points": 26, "military_points": 4},
        {"id": "p3", "victory_points": 26, "military_points": 4, "characters": 2},
    ]
    before = await snapshot(handle)
    response = await client.post(
        f"{handle.url}/final-scores", json={"players": players}, headers=handle.player("p1")
    )
    assert response.status_code == 200, response.text
    assert_scores_explained(response.json())
    totals = {p["player_id"]: p["total"] for p in response.json()["players"]}
    assert [p["player_id"] for p in response.json()["players"]] == ["p2", "p1", "p3"]
    # p2 holds III-4: 26 VP lose 5; p1 and p3 tie for first in military: 5 each.
    assert totals == {"p2": 26 - 5 + 1, "p1": 26 + 5, "p3": 26 + 5 + 3}
    await assert_unchanged(handle, before)


async def test_game_final_scores_preview_uses_excommunications_so_far(
    client: httpx.AsyncClient,
) -> None:
    handle = await create_game(client, seed=None, tiles={"1": "I-1", "2": "II-1", "3": "III-4"})
    players = [{"id": f"p{i}", "victory_points": 10} for i in (1, 2, 3)]
    response = await client.post(
        f"{handle.url}/final-scores", json={"players": players}, headers=handle.host()
    )
    assert [p["total"] for p in response.json()["players"]] == [10, 10, 10]
    await handle.set_faith(p1=5, p2=5, p3=5)
    await handle.resolve(1, default_choice="support")
    await handle.set_faith(p1=5, p2=5, p3=5)
    await handle.resolve(2, default_choice="support")
    await handle.set_faith(p1=5, p2=5, p3=4)
    await handle.resolve(3)
    response = await client.post(
        f"{handle.url}/final-scores", json={"players": players}, headers=handle.host()
    )
    assert [p["total"] for p in response.json()["players"]] == [10, 10, 8]


async def test_game_final_scores_every_player_exactly_once(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    url = f"{game.url}/final-scores"
    before = await snapshot(game)
    for players, loc in (
        ([{"id": "p1"}, {"id": "p2"}], ["players"]),
        ([{"id": "p1"}, {"id": "p2"}, {"id": "p2"}], ["players"]),
        ([{"id": "p1"}, {"id": "p2"}, {"id": "p3"}, {"id": "p3"}], ["players"]),
        ([{"id": "p1"}, {"id": "p2"}, {"id": "p9"}], ["players", 2, "id"]),
        ([{"id": "p1", "excommunications": []}, {"id": "p2"}, {"id": "p3"}], None),
    ):
        response = await client.post(url, json={"players": players}, headers=game.host())
        assert_problem(response, 422, "validation-error", loc=loc)
    assert_problem(await client.post(url, json={"players": [{"id": "p1"}]}), 401, "unauthorized")
    await assert_unchanged(game, before)


async def test_names_each_in_one_script_sit_at_one_table(client: httpx.AsyncClient) -> None:
    names = ["Anna", "\u0410\u043d\u043d\u0430", "\u039d\u03af\u03ba\u03bf\u03c2", "\u5c71\u7530"]
    created = await client.post("/v1/games", json={"players": [{"name": n} for n in names]})
    assert created.status_code == 201, created.text
    assert [p["name"] for p in created.json()["game"]["players"]] == names


async def test_a_read_and_its_304_answer_exactly_these_bytes(game: GameHandle) -> None:
    # Pinned whole (status, every header in order, body), so that a faster read path
    # cannot change a byte of either answer unnoticed.
    asked = {**game.host(), "X-Request-ID": "pinned-read"}
    read = await game.client.get(game.url, headers=asked)
    body = read.content
    assert read.status_code == 200
    assert read.headers.raw == [
        (b"etag", b'"1"'),
        (b"content-length", b"%d" % len(body)),
        (b"content-type", b"application/json"),
        (b"x-request-id", b"pinned-read"),
    ]
    # The stored document, as created, in its compact form.
    assert body == json.dumps(game.game, separators=(",", ":"), ensure_ascii=False).encode()
    for tags in ('"1"', 'W/"1"', '"7", "1"'):
        cached = await game.client.get(game.url, headers={**asked, "If-None-Match": tags})
        assert cached.status_code == 304, tags
        assert cached.headers.raw == [(b"etag", b'"1"'), (b"x-request-id", b"pinned-read")]
        assert cached.content == b""
    stale = await game.client.get(game.url, headers={**asked, "If-None-Match": '"2"'})
    assert (stale.status_code, stale.headers.raw, stale.content) == (200, read.headers.raw, body)
