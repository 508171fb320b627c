"""The use cases without HTTP: what each returns, the order of their checks (404, then
401/403, then 412, then the rules), and that a refused change writes nothing."""

from __future__ import annotations

import asyncio
import json

import pytest

from app.domain.errors import InvalidInput, NotFound, ReportOutOfOrder
from app.domain.game import GameEvent
from app.persistence.db import Database
from app.services.errors import (
    EventLimitReached,
    Forbidden,
    IdempotencyKeyReused,
    Unauthorized,
    VersionMismatch,
)
from app.services.idempotency import request_fingerprint
from app.services.storage import Storage
from app.services.stored import Outcome
from tests.services.conftest import MAX_EVENTS, UseCases, create, new_game
from tests.statements import count_statements

KEY = "service-level-key-0123456789"


def test_create_answers_the_game_and_tokens_once_and_replays_them(use_cases: UseCases) -> None:
    fingerprint = request_fingerprint("createGame", "same body")
    first = use_cases.games.create_game(new_game(), KEY, fingerprint)
    again = use_cases.games.create_game(new_game(), KEY, fingerprint)
    assert (first.outcome, first.replayed, again.replayed) == (Outcome.GAME_CREATED, False, True)
    assert (again.body, again.game_id, again.version) == (first.body, first.game_id, 1)
    body = json.loads(first.body)
    assert first.game_id == body["game"]["id"]
    assert set(body["player_tokens"]) == {"p1", "p2", "p3"}
    with pytest.raises(IdempotencyKeyReused):
        use_cases.games.create_game(new_game(), KEY, request_fingerprint("createGame", "other"))


def test_a_read_is_the_stored_document_with_its_version(use_cases: UseCases) -> None:
    game = create(use_cases)
    document = asyncio.run(use_cases.games.get_game(game.id, game.host))
    assert document.version == 1
    assert json.loads(document.body)["turn_order"] == ["p1", "p2", "p3"]
    assert asyncio.run(use_cases.games.current_version(game.id, game.players["p2"])) == 1


def test_faith_answers_the_players_changed_and_what_they_lost(use_cases: UseCases) -> None:
    game = create(use_cases)
    change = use_cases.games.set_faith(game.id, {"p1": 17, "p3": 4}, game.host, None, single=False)
    assert change.version == 2
    assert [(p.id, p.faith) for p in change.players] == [("p1", 15), ("p3", 4)]
    assert change.lost == {"p1": 2, "p3": 0}


def test_checks_come_in_order_404_then_403_then_412_then_the_rules(use_cases: UseCases) -> None:
    game = create(use_cases)
    bruno = game.players["p2"]
    # An unknown player in the path is a 404 even for a token that may not act (403).
    with pytest.raises(NotFound):
        use_cases.games.set_leaders(game.id, "p9", ["sisto_iv"], bruno, {7})
    # A player who may not act gets 403 before the stale version's 412.
    with pytest.raises(Forbidden):
        use_cases.games.set_leaders(game.id, "p1", ["sisto_iv"], bruno, {7})
    # The host with a stale version gets 412 before the rules (a leader listed twice).
    with pytest.raises(VersionMismatch):
        use_cases.games.set_leaders(game.id, "p1", ["sisto_iv", "sisto_iv"], game.host, {7})
    with pytest.raises(InvalidInput):
        use_cases.games.set_leaders(game.id, "p1", ["sisto_iv", "sisto_iv"], game.host, {1})
    with pytest.raises(Unauthorized):
        use_cases.games.set_leaders(game.id, "p1", ["sisto_iv"], "not a token", None)
    with pytest.raises(ReportOutOfOrder):
        use_cases.reports.resolve(game.id, 2, "support", game.host, None, None, "f")
    assert (
        asyncio.run(use_cases.games.current_version(game.id, game.host)) == 1
    )  # nothing was written


def test_a_change_must_check_the_version_before_it_applies(use_cases: UseCases) -> None:
    game = create(use_cases)
    with (
        pytest.raises(RuntimeError, match="check_version"),
        use_cases.transactions.changing(game.id, game.host) as change,
    ):
        change.apply(GameEvent("turn_order_set", {"from": [], "to": ["p3", "p2", "p1"]}))
    assert asyncio.run(use_cases.games.current_version(game.id, game.host)) == 1


def test_a_change_that_logs_no_event_is_a_bug_and_writes_nothing(use_cases: UseCases) -> None:
    game = create(use_cases)
    with (
        pytest.raises(RuntimeError, match="apply"),
        use_cases.transactions.changing(game.id, game.host) as change,
    ):
        change.check_version(None)
    assert asyncio.run(use_cases.games.current_version(game.id, game.host)) == 1


def test_a_game_logs_at_most_max_events_then_refuses_changes_but_reads(
    use_cases: UseCases,
) -> None:
    game = create(use_cases)
    for faith in range(MAX_EVENTS - 1):  # each a change: 1, 2, 3...
        use_cases.games.set_faith(game.id, {"p1": faith % 15 + 1}, game.host, None, single=True)
    assert asyncio.run(use_cases.games.current_version(game.id, game.host)) == MAX_EVENTS
    with pytest.raises(EventLimitReached):
        use_cases.games.set_faith(game.id, {"p1": 3}, game.host, None, single=True)
    version, events = use_cases.games.list_events(game.id, 0, 100, game.host)
    assert version == MAX_EVENTS and len(events) == MAX_EVENTS
    assert asyncio.run(use_cases.games.get_game(game.id, game.host)).version == MAX_EVENTS


def test_resolving_answers_the_report_and_replays_it(use_cases: UseCases) -> None:
    game = create(use_cases)
    use_cases.games.set_faith(game.id, {"p1": 5, "p2": 1, "p3": 9}, game.host, None, single=False)
    use_cases.reports.set_decision(game.id, 1, "p3", "refuse", game.players["p3"], {2})
    fingerprint = request_fingerprint("resolve", "{}")
    answer = use_cases.reports.resolve(game.id, 1, "support", game.host, {3}, KEY, fingerprint)
    replay = use_cases.reports.resolve(game.id, 1, "support", game.host, {3}, KEY, fingerprint)
    assert (answer.outcome, answer.version, replay.replayed) == (
        Outcome.REPORT_RESOLVED,
        4,
        True,
    )
    outcomes = {o["player_id"]: o["outcome"] for o in json.loads(answer.body)["outcomes"]}
    assert outcomes == {"p1": "supported", "p2": "excommunicated", "p3": "excommunicated"}
    state = asyncio.run(use_cases.reports.get_report(game.id, 1, game.host))
    assert [e.tile_id for e in state.player("p2").excommunications] == ["I-6"]


def test_a_keyed_changes_host_check_answers_404_401_403_reading_no_state(
    use_cases: UseCases, storage: Storage
) -> None:
    game = create(use_cases)
    check = use_cases.transactions.require_host
    with pytest.raises(NotFound):
        check("0" * 32, game.host, "resolve a report")
    with pytest.raises(Unauthorized):
        check(game.id, "not-a-token", "resolve a report")
    with pytest.raises(Forbidden):
        check(game.id, game.players["p1"], "resolve a report")
    if isinstance(storage, Database):
        with count_statements(storage.engine) as statements:
            check(game.id, game.host, "resolve a report")
        # The version and the token hashes: the state is not read, so not parsed.
        assert [s for s in statements if "games.state" in s] == []
        assert any("games.host_token_hash" in s for s in statements)
    else:
        check(game.id, game.host, "resolve a report")
