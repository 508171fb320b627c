"""The events are declared once (app/domain/events.py): each type reads back from the JSON
the log stores, a log of that JSON replays to the state, and the API's event guide names
every key of every event's data."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from app.domain import game as rules
from app.domain.events import EVENTS, GameEvent, LoggedEvent, read_event, typed
from app.domain.json_data import key_of
from tests.domain.stored_games import Table

API_GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def every_type_played() -> Table:
    table = Table(track_rounds=True)
    table.play(rules.set_faith, {"p1": 5, "p2": 20})
    table.play(rules.change_faith, "p3", 4)
    table.play(rules.set_leaders, "p1", ["sisto_iv"])
    table.play(rules.set_turn_order, ["p2", "p1", "p3"])
    table.play(rules.set_decision, 1, "p1", "support")
    table.play(rules.advance_round)
    table.play(rules.advance_round)
    table.play(rules.resolve, 1, "refuse")
    table.undo()
    table.redo()
    table.play(rules.change_seat_token, "p2", "reissued")
    return table


def as_logged(event: GameEvent) -> GameEvent:
    """The event as the service reads it back: its type and its data through JSON."""
    return GameEvent(event.type, json.loads(json.dumps(event.data)))


def test_every_event_type_reads_back_from_the_json_it_logs() -> None:
    table = every_type_played()
    assert {event.type for _, _, event in table.log} == {kind.type for kind in EVENTS}
    for _, _, event in table.log:
        logged = as_logged(event)
        assert isinstance(logged, LoggedEvent)
        assert read_event(logged.type, logged.data) == event
        assert typed(logged) == event
        assert logged.data == event.data


def test_a_log_of_json_replays_to_the_state() -> None:
    table = every_type_played()
    log = [(seq, at, as_logged(event)) for seq, at, event in table.log]
    assert rules.replay("g", log) == table.game


def test_an_old_creation_without_track_rounds_reads_as_none_tracked() -> None:
    created = dict(every_type_played().log[0][2].data)
    del created["track_rounds"]
    assert (
        rules.replay("g", [(1, Table().log[0][1], GameEvent("game_created", created))]).round
        is None
    )


def test_an_unknown_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown event type"):
        read_event("game_paused", {})


def _guide_rows() -> dict[str, str]:
    section = API_GUIDE.read_text("utf-8").split("### Event types and their data", 1)[1]
    rows = re.findall(r"^\| `([a-z_]+)` \| [^|]+ \| (.+) \|$", section, re.MULTILINE)
    return {kind: data for kind, data in rows if kind != "type"}  # not the header


def _keys(kind: type[Any]) -> list[str]:
    return [key_of(field) for field in fields(kind)]


def test_the_api_guide_names_every_key_of_every_events_data() -> None:
    rows = _guide_rows()
    assert list(rows) == [kind.type for kind in EVENTS]
    for kind in EVENTS:
        named = set(re.findall(r"`([a-z_]+)`", rows[kind.type]))
        missing = [key for key in _keys(kind) if key not in named]
        assert not missing, f"docs/api.md: the {kind.type} row does not name {missing}"


def test_the_contract_s_event_schemas_are_the_declared_fields() -> None:
    """Each type's `<Class>Event` and its `data` schema: the fields' keys, required in
    their order, with their descriptions (undo and redo share ChangeRevertedData)."""
    schemas = json.loads(CONTRACT.read_text("utf-8"))["components"]["schemas"]
    mapping = schemas["EventRead"]["discriminator"]["mapping"]
    for kind in EVENTS:
        event = schemas[mapping[kind.type].rsplit("/", 1)[-1]]
        assert event["properties"]["type"]["const"] == kind.type
        data = schemas[event["properties"]["data"]["$ref"].rsplit("/", 1)[-1]]
        assert data["required"] == _keys(kind)
        for field in fields(kind):
            description = field.metadata.get("description")
            assert data["properties"][key_of(field)].get("description") == description
