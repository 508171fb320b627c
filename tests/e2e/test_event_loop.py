"""``EVENT_LOOP`` picks the loop ``python -m app`` serves on: the standard library's by
default, uvloop when asked. Each is the real server as a subprocess, saying at start-up
which loop its app found running, and serving a stored game on it."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from app.settings import Settings
from tests.support.servers import Server, running


@pytest.mark.parametrize(
    ("setting", "loop"), [(None, "asyncio"), ("asyncio", "asyncio"), ("uvloop", "uvloop")]
)
def test_the_server_serves_on_the_loop_event_loop_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str | None, loop: str
) -> None:
    # The server inherits this process's environment: the default case must not.
    monkeypatch.delenv("EVENT_LOOP", raising=False)
    env = {"LOG_LEVEL": "info"}
    if setting is not None:
        env["EVENT_LOOP"] = setting
    server = Server(f"sqlite:///{tmp_path}/loop.db", tmp_path, f"loop-{loop}", env=env)
    with running(server), httpx.Client(base_url=server.base_url, timeout=10) as http:
        created = http.post("/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]})
        assert created.status_code == 201, created.text
        game = created.json()
        read = http.get(
            f"/v1/games/{game['game']['id']}",
            headers={"Authorization": f"Bearer {game['host_token']}"},
        )
        assert read.status_code == 200, read.text
    log = server.log_path.read_text()
    assert f"on the {loop} event loop)" in log  # what the command says it starts
    assert f"serving on the {loop} event loop" in log  # what the app found running
    other = {"asyncio": "uvloop", "uvloop": "asyncio"}[loop]
    assert f"serving on the {other} event loop" not in log


def test_an_unknown_event_loop_is_refused() -> None:
    with pytest.raises(ValidationError, match="event_loop"):
        Settings(event_loop="trio")  # type: ignore[arg-type]
