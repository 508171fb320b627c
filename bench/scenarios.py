"""What ``bench/run.py`` measures: each scenario's load (a wrk script, its arguments, and
the same request made once for the probe) and the references it is measured against."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench import peer
from bench.harness import REPO

PAYLOADS = REPO / "bench" / "payloads"
PLAYERS = json.loads((PAYLOADS / "create_game.json").read_text())["players"]
# Period 1 threshold is 3: p1 and p3 are eligible (default "support"), p2 and p4 are not.
REPORT_FAITH = {"p1": 5, "p2": 2, "p3": 7, "p4": 0}
TILE = "I-1"


# ---- what is measured ---------------------------------------------------------------------

# A probe: what the data gives one request of a load as (method, path, headers, body).
Request = tuple[str, str, dict[str, str], bytes | None]


@dataclass(frozen=True)
class Load:
    """wrk's script and arguments (placeholders: {games}, {decide}, {resolve}, {threads},
    {rows}, {peer}, {peer_join}), and the same request made once, for the probe."""

    script: str
    args: tuple[str, ...]
    probe: Callable[[Data], Request]


@dataclass(frozen=True)
class Reference:
    name: str
    server: str  # "bare", "bare-read", "bare-write" or "peer"
    load: Load | None = None  # None: the scenario's own requests


@dataclass(frozen=True)
class Scenario:
    name: str
    load: Load
    against: tuple[Reference, ...]
    server: str = "service"
    sliced: bool = True
    in_app: bool = False  # served only by bench/in_app.py (--in-app)


@dataclass
class Data:
    """What the seeding made, for the probes (the wrk scripts read the same as files)."""

    games: list[list[Any]] = field(default_factory=list)  # [id, host token, player ids]
    decide: list[list[Any]] = field(default_factory=list)
    probe_game: list[Any] = field(default_factory=list)  # faith set; the write probes change it
    peer_matches: list[list[Any]] = field(default_factory=list)  # [id, [[seat, credentials]]]
    peer_open: list[Any] = field(default_factory=list)  # one match with free seats


def _json(body: object) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def _post_file(path: str, payload: str) -> Load:
    body = (PAYLOADS / payload).read_bytes()
    return Load(
        "post_json.lua",
        (path, str(PAYLOADS / payload)),
        lambda d: ("POST", path, {"Content-Type": "application/json"}, body),
    )


def _get(path: str) -> Load:
    return Load("get.lua", (path,), lambda d: ("GET", path, {}, None))


def _auth(game: list[Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {game[1]}", "Content-Type": "application/json"}


GET_GAME = Load(
    "get_game.lua",
    ("{games}",),
    lambda d: ("GET", f"/v1/games/{d.games[0][0]}", _auth(d.games[0]), None),
)
GET_GAME_304 = Load(
    "get_game.lua",
    ("{games}", '"1"'),
    lambda d: (
        "GET",
        f"/v1/games/{d.games[0][0]}",
        {**_auth(d.games[0]), "If-None-Match": '"1"'},
        None,
    ),
)
PUT_FAITH = Load(
    "put_faith.lua",
    ("{games}",),
    lambda d: (
        "PUT",
        f"/v1/games/{d.probe_game[0]}/players/p1/faith",
        _auth(d.probe_game),
        _json({"faith": REPORT_FAITH["p1"]}),
    ),
)
PUT_DECISION = Load(
    "put_decision.lua",
    ("{decide}",),
    lambda d: (
        "PUT",
        f"/v1/games/{d.probe_game[0]}/reports/1/decisions/p1",
        _auth(d.probe_game),
        _json({"choice": "support"}),
    ),
)


def _resolve(args: tuple[str, ...]) -> Load:
    return Load(
        "resolve.lua",
        args,
        lambda d: (
            "POST",
            f"/v1/games/{d.probe_game[0]}/reports/1/resolution",
            _auth(d.probe_game),
            _json({"default_choice": "support"}),
        ),
    )


def _in_app(prefix: str) -> Load:
    return Load(
        "read_ceiling.lua",
        ("{games}", prefix),
        lambda d: ("GET", f"{prefix}{d.games[0][0]}", {}, None),
    )


PEER_GET = Load(
    "peer_get.lua",
    ("{peer}",),
    lambda d: ("GET", f"/games/{peer.GAME}/{d.peer_matches[0][0]}", {}, None),
)
PEER_UPDATE = Load(
    "peer_update.lua",
    ("{peer}",),
    lambda d: (
        "POST",
        f"/games/{peer.GAME}/{d.peer_matches[0][0]}/update",
        {"Content-Type": "application/json"},
        _json(
            {
                "playerID": d.peer_matches[0][1][0][0],
                "credentials": d.peer_matches[0][1][0][1],
                "data": {"faith": 5},
            }
        ),
    ),
)
PEER_JOIN = Load(
    "peer_join.lua",
    ("{peer_join}", "{threads}"),
    lambda d: (
        "POST",
        f"/games/{peer.GAME}/{d.peer_open[0]}/join",
        {"Content-Type": "application/json"},
        _json({"playerID": "0", "playerName": "Anna"}),
    ),
)

BARE = (Reference("bare", "bare"),)
BARE_READ = Reference("bare-read", "bare-read")
# Not a goal's ceiling: bare-read on the driver path the service's reads take (its module).
BARE_READ_LIBPQ = Reference("bare-read-libpq", "bare-read-libpq")
BARE_WRITE = Reference("bare-write", "bare-write")

SCENARIOS = [
    Scenario("healthz", _get("/healthz"), BARE),
    Scenario("faith-track", _get("/v1/faith-track"), BARE),
    Scenario("tile", _get(f"/v1/excommunication-tiles/{TILE}"), BARE),
    Scenario("calc-gains", _post_file("/v1/calculations/gains", "gains.json"), BARE),
    Scenario(
        "calc-final-scores",
        _post_file("/v1/calculations/final-scores", "final_scores.json"),
        BARE,
    ),
    Scenario(
        "get-game",
        GET_GAME,
        (BARE_READ, BARE_READ_LIBPQ, Reference("boardgame.io get", "peer", PEER_GET)),
    ),
    # Before any write: the seeded games are still at version 1, so every answer is a 304.
    Scenario("get-game-304", GET_GAME_304, (BARE_READ, BARE_READ_LIBPQ)),
    Scenario(
        "create-game",
        _post_file("/v1/games", "create_game.json"),
        (
            Reference(
                "boardgame.io create",
                "peer",
                _post_file(f"/games/{peer.GAME}/create", "peer_create.json"),
            ),
        ),
    ),
    Scenario(
        "put-faith", PUT_FAITH, (BARE_WRITE, Reference("boardgame.io update", "peer", PEER_UPDATE))
    ),
    Scenario("put-decision", PUT_DECISION, (BARE_WRITE,)),
    Scenario(
        "resolve-report",
        _resolve(("{resolve}", "{threads}")),
        (Reference("bare-write", "bare-write", _resolve(("{resolve}", "{threads}", "wrap"))),),
        sliced=False,
    ),
    # A seat of a match: what boardgame.io needs four of (after a create) before four
    # players hold credentials, which the service's one create hands out.
    Scenario("peer-join", PEER_JOIN, (), server="peer", sliced=False),
    # --in-app: the cheapest read on the service's own read paths, and its cheapest write.
    Scenario("read-ceiling", _in_app("/bench/read-ceiling/"), (BARE_READ,), in_app=True),
    Scenario(
        "read-ceiling-threadpool",
        _in_app("/bench/read-ceiling-threadpool/"),
        (BARE_READ,),
        in_app=True,
    ),
    Scenario("read-ceiling-raw", _in_app("/bench/read-ceiling-raw/"), (BARE_READ,), in_app=True),
    Scenario(
        "txn-ceiling",
        Load(
            "ceiling_update.lua", ("{rows}",), lambda d: ("PUT", "/bench/txn-ceiling/1", {}, None)
        ),
        (),
        in_app=True,
    ),
]
BY_NAME = {s.name: s for s in SCENARIOS}
DEFAULT = [s.name for s in SCENARIOS if not s.in_app]
