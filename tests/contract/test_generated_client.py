"""A client generated from the committed contract plays a whole game against the real server.

``openapi-python-client`` generates a Python client from ``openapi/openapi.json`` into the
test's tmp folder (never committed); the test imports it and drives ``python -m app``,
started as a subprocess on a fresh SQLite file: create, faith, decisions, the three
reports, reads and final scores. A contract change that breaks generation, drops an
operation from the client or changes a shape the client parses fails here.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.servers import Server

ROOT = Path(__file__).resolve().parents[2]
OPENAPI_FILE = ROOT / "openapi" / "openapi.json"
PACKAGE = "vr_contract_client"
_HTTP_METHODS = ("get", "put", "post", "delete", "patch")


def _generator() -> list[str]:
    found = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))
    found = found or shutil.which("openapi-python-client")
    if found is None:
        pytest.fail("openapi-python-client is not installed (it is a dev dependency)")
    return [found]


def _snake(operation_id: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation_id).lower()


def _operation_ids() -> list[str]:
    document: dict[str, Any] = json.loads(OPENAPI_FILE.read_text(encoding="utf-8"))
    return [
        operation["operationId"]
        for path_item in document["paths"].values()
        for method, operation in path_item.items()
        if method in _HTTP_METHODS
    ]


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The generated client's package folder, importable as ``vr_contract_client``."""
    out = tmp_path_factory.mktemp("generated_client")
    package = out / PACKAGE
    result = subprocess.run(
        [
            *_generator(),
            "generate",
            "--path",
            str(OPENAPI_FILE),
            "--output-path",
            str(package),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=out,
        # Its post-generation hook runs `ruff`, installed beside this Python: found even
        # when the virtualenv is not activated (`.venv/bin/python -m pytest`).
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        },
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    # The generator still exits 0 when it skips an endpoint or a schema it cannot read.
    assert "Warning" not in output and "Unable to" not in output, output
    sys.path.insert(0, str(out))
    try:
        yield package
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture
def server_url(tmp_path: Path) -> Iterator[str]:
    """``python -m app`` on a fresh SQLite file; stopped with SIGINT, which must exit 0."""
    server = Server(f"sqlite:///{tmp_path / 'served.db'}", tmp_path, "generated-client")
    try:
        server.start().wait_ready()
        yield server.base_url
    finally:
        server.stop(signal.SIGINT)
    assert server.proc is not None and server.proc.returncode == 0, server.log_tail()


def test_client_has_every_operation(client_package: Path) -> None:
    for operation_id in _operation_ids():
        modules = list((client_package / "api").glob(f"*/{_snake(operation_id)}.py"))
        assert len(modules) == 1, f"{operation_id}: no module in the generated client"
        name = f"{PACKAGE}.api.{modules[0].parent.name}.{modules[0].stem}"
        module = importlib.import_module(name)
        for function in ("sync", "sync_detailed", "asyncio", "asyncio_detailed"):
            assert callable(getattr(module, function, None)), f"{name}.{function}"


def test_generated_client_plays_a_game(client_package: Path, server_url: str) -> None:
    api = f"{PACKAGE}.api"
    models = importlib.import_module(f"{PACKAGE}.models")
    client_module = importlib.import_module(PACKAGE)
    create_game = importlib.import_module(f"{api}.games.create_game")
    get_game = importlib.import_module(f"{api}.games.get_game")
    set_faith = importlib.import_module(f"{api}.games.set_faith")
    final_scores = importlib.import_module(f"{api}.games.calculate_game_final_scores")
    list_events = importlib.import_module(f"{api}.games.list_game_events")
    set_decision = importlib.import_module(f"{api}.reports.set_report_decision")
    resolve = importlib.import_module(f"{api}.reports.resolve_report")
    get_report = importlib.import_module(f"{api}.reports.get_report")
    get_tile = importlib.import_module(f"{api}.reference.get_excommunication_tile")

    anonymous = client_module.Client(base_url=server_url, raise_on_unexpected_status=True)
    created = create_game.sync_detailed(
        client=anonymous,
        body=models.GameCreate.from_dict(
            {
                "players": [
                    {"name": "Anna", "leaders": ["sisto_iv"]},
                    {"name": "Bruno"},
                    {"name": "Carla"},
                ],
                "seed": 42,
            }
        ),
    )
    assert created.status_code == 201, created.content
    assert isinstance(created.parsed, models.GameCreated)
    game = created.parsed.game
    assert created.headers["Location"] == f"/v1/games/{game.id}"
    assert [p.id for p in game.players] == ["p1", "p2", "p3"]
    assert {period: tile.id for period, tile in game.tiles.additional_properties.items()} == {
        "1": "I-6",
        "2": "II-3",
        "3": "III-7",
    }
    host = client_module.AuthenticatedClient(
        base_url=server_url, token=created.parsed.host_token, raise_on_unexpected_status=True
    )
    carla = client_module.AuthenticatedClient(
        base_url=server_url,
        token=created.parsed.player_tokens["p3"],
        raise_on_unexpected_status=True,
    )

    def faith(**values: int) -> None:
        answer = set_faith.sync(
            game.id, client=host, body=models.FaithBatchUpdate.from_dict({"faith": values})
        )
        assert isinstance(answer, models.FaithBatchRead)
        assert {p.id: p.faith for p in answer.players} == values

    # Period I (threshold 3): Anna supports, Carla refuses for herself, Bruno is short.
    faith(p1=5, p2=2, p3=9)
    support = models.DecisionUpdate.from_dict({"choice": "support"})
    refuse = models.DecisionUpdate.from_dict({"choice": "refuse"})
    assert isinstance(
        set_decision.sync(game.id, 1, "p1", client=host, body=support), models.ReportRead
    )
    report = set_decision.sync(game.id, 1, "p3", client=carla, body=refuse)
    assert isinstance(report, models.ReportRead)
    assert {d.player_id: d.eligible for d in report.decisions} == {
        "p1": True,
        "p2": False,
        "p3": True,
    }
    report = resolve.sync(game.id, 1, client=host, body=models.ResolutionCreate.from_dict({}))
    assert isinstance(report, models.ReportRead)
    outcomes = {o.player_id: o for o in report.outcomes}
    assert outcomes["p1"].outcome.value == "supported"
    assert outcomes["p1"].victory_points.to_dict() == {"faith": 5, "sisto_iv": 5, "total": 10}
    assert (outcomes["p2"].outcome.value, outcomes["p2"].tile_id) == ("excommunicated", "I-6")
    # Refusing is excommunication that keeps the faith (R-REP-5).
    assert (outcomes["p3"].outcome.value, outcomes["p3"].faith_after) == ("excommunicated", 9)

    # Period II: everyone supports by default; period III: Anna is short.
    faith(p1=4, p2=4, p3=12)
    default_support = models.ResolutionCreate.from_dict({"default_choice": "support"})
    report = resolve.sync(game.id, 2, client=host, body=default_support)
    assert isinstance(report, models.ReportRead)
    assert {o.player_id: o.victory_points.total for o in report.outcomes} == {
        "p1": 4 + 5,  # faith step 4, plus Sisto IV
        "p2": 4,
        "p3": 19,  # faith step 12
    }
    faith(p1=3, p2=15, p3=7)
    resolve.sync(game.id, 3, client=host, body=models.ResolutionCreate.from_dict({}))
    report = get_report.sync(game.id, 3, client=carla)
    assert isinstance(report, models.ReportRead)
    assert report.status.value == "resolved"
    last = {o.player_id: o for o in report.outcomes}
    assert (last["p1"].outcome.value, last["p1"].tile_id) == ("excommunicated", "III-7")
    assert last["p2"].victory_points.faith == 30

    state = get_game.sync(game.id, client=host)
    assert isinstance(state, models.GameRead)
    players = {p.id: p for p in state.players}
    assert players["p1"].report_victory_points == 10 + 9 + 3
    assert [e.tile_id for e in players["p1"].excommunications] == ["III-7"]
    assert [e.tile_id for e in players["p3"].excommunications] == ["I-6"]
    assert all(p.faith == 0 for p in state.players)
    assert [r.status.value for r in state.reports] == ["resolved"] * 3
    events = list_events.sync(game.id, client=host)
    assert isinstance(events, models.EventList)
    assert [e.seq for e in events.events] == list(range(1, state.version + 1))

    # Final scores: 30 VP and 10 resources each (+2); III-7 costs Anna 1 VP per resource.
    scoring = [
        {
            "id": pid,
            "victory_points": 30,
            "resources": {"coins": 5, "wood": 2, "stone": 3},
        }
        for pid in ("p1", "p2", "p3")
    ]
    scores = final_scores.sync(
        game.id,
        client=host,
        body=models.GameFinalScoresCalculation.from_dict({"players": scoring}),
    )
    assert isinstance(scores, models.FinalScoresResult)
    assert {s.player_id: s.total for s in scores.players} == {"p1": 22, "p2": 32, "p3": 32}

    # A reference read and a problem answer parse too.
    tile = get_tile.sync("III-7", client=anonymous)
    assert isinstance(tile, models.TileRead) and tile.period == 3
    missing = get_game.sync_detailed("no-such-game", client=host)
    assert missing.status_code == 404
    assert isinstance(missing.parsed, models.Problem)
    assert missing.parsed.type_.endswith("/not-found")
