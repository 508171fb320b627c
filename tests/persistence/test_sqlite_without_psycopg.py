"""A process on SQLite never loads psycopg: not to serve, and not when a rule refuses a
change inside a unit of work, where every error is asked whether it is a database outage
(app/persistence/errors.py). Loading the driver there stalled the process while it loaded
and kept it in memory for good. Run in a fresh interpreter: the test session itself has
loaded psycopg for its PostgreSQL tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import json, sys
from fastapi.testclient import TestClient
from app.main import create_app
from app.persistence.migrate import upgrade
from app.settings import Settings

url = "sqlite:///" + sys.argv[1]
upgrade(url)
seen = {}
with TestClient(create_app(Settings(database_url=url))) as client:
    made = client.post("/v1/games", json={"players": [{"name": "Anna"}, {"name": "Bruno"}]})
    game = made.json()
    seen["created"] = made.status_code
    seen["loaded_after_create"] = "psycopg" in sys.modules
    host = {"Authorization": f"Bearer {game['host_token']}"}
    games = f"/v1/games/{game['game']['id']}"
    faith = client.put(f"{games}/players/p1/faith", headers=host, json={"faith": 5})
    seen["faith"] = faith.status_code
    # Anna may choose and has not: the resolution is refused by the rules, inside the unit
    # of work.
    refused = client.post(f"{games}/reports/1/resolution", headers=host, json={})
    seen["refused"] = refused.status_code
    seen["problem"] = refused.json().get("type")
    seen["loaded_after_refusal"] = "psycopg" in sys.modules
print(json.dumps(seen))
"""


def test_a_change_refused_inside_a_unit_of_work_does_not_load_psycopg(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "game.sqlite")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["created"] == 201
    assert not seen["loaded_after_create"]
    # A refusal by the rules (not a validation error before any unit of work).
    assert seen["faith"] == 200
    assert (seen["refused"], seen["problem"]) == (409, "/problems/decisions-pending"), seen
    assert not seen["loaded_after_refusal"], "a refused change loaded psycopg on SQLite"
