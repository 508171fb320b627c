"""Rounds and deletion through the use cases, on both databases."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest

from app.domain.errors import NotFound, NotInReportPhase, ReportStillOpen, RoundsNotTracked
from app.services.errors import Forbidden, VersionMismatch
from app.services.idempotency import request_fingerprint
from app.services.retention import Retention
from app.services.stored import Outcome, utcnow
from app.services.tokens import idempotency_key_hash
from tests.services.conftest import UseCases, create, new_game

KEY = "6a1f0e2d-3c4b-4a59-8e7f-6d5c4b3a2910"


def test_the_host_advances_the_round_and_a_report_waits_for_its_phase(
    use_cases: UseCases,
) -> None:
    game = create(use_cases, new_game(track_rounds=True))
    with pytest.raises(Forbidden):
        use_cases.games.advance_round(game.id, game.players["p1"], None, None, "f")
    with pytest.raises(NotInReportPhase):
        use_cases.reports.resolve(game.id, 1, "support", game.host, None, None, "f")
    rounds = []
    for _ in range(2):
        answer = use_cases.games.advance_round(game.id, game.host, None, None, "f")
        rounds.append(json.loads(answer.body)["round"])
    assert rounds == [{"number": 2, "phase": "play"}, {"number": 2, "phase": "report"}]
    with pytest.raises(ReportStillOpen):
        use_cases.games.advance_round(game.id, game.host, None, None, "f")
    use_cases.reports.resolve(game.id, 1, "support", game.host, None, None, "f")
    answer = use_cases.games.advance_round(game.id, game.host, {4}, None, "f")
    assert (json.loads(answer.body)["round"], answer.version) == (
        {"number": 3, "phase": "play"},
        5,
    )


def test_a_round_advance_retried_with_its_key_advances_once(use_cases: UseCases) -> None:
    game = create(use_cases, new_game(track_rounds=True))
    fingerprint = request_fingerprint("advanceRound", game.id)
    first = use_cases.games.advance_round(game.id, game.host, None, KEY, fingerprint)
    again = use_cases.games.advance_round(game.id, game.host, None, KEY, fingerprint)
    assert (again.replayed, again.body) == (True, first.body)
    assert json.loads(again.body)["round"] == {"number": 2, "phase": "play"}


def test_a_game_without_rounds_has_none_to_advance(use_cases: UseCases) -> None:
    game = create(use_cases)
    with pytest.raises(RoundsNotTracked):
        use_cases.games.advance_round(game.id, game.host, None, None, "f")


def test_the_host_deletes_a_game_with_everything_it_owns(use_cases: UseCases) -> None:
    created = use_cases.games.create_game(new_game(), KEY, request_fingerprint("c", "1"))
    body = json.loads(created.body)
    game_id, host = body["game"]["id"], body["host_token"]
    with pytest.raises(Forbidden):
        use_cases.games.delete_game(game_id, body["player_tokens"]["p1"], None)
    with pytest.raises(VersionMismatch):
        use_cases.games.delete_game(game_id, host, {7})
    use_cases.games.delete_game(game_id, host, {1})
    with pytest.raises(NotFound):
        asyncio.run(use_cases.games.get_game(game_id, host))
    with pytest.raises(NotFound):
        use_cases.games.delete_game(game_id, host, None)
    with use_cases.storage.unit_of_work(write=False) as uow:
        assert uow.events.list_after(game_id, 0, 10) == []
        key = uow.keys.get(idempotency_key_hash("createGame", KEY))
        assert key is not None and (key.game_id, key.body, key.outcome) == (
            None,
            None,
            Outcome.GAME_DELETED,
        )
    # The creation retried with its key: 404, and no game made again.
    with pytest.raises(NotFound):
        use_cases.games.create_game(new_game(), KEY, request_fingerprint("c", "1"))


def test_the_retention_deletes_the_same_way(use_cases: UseCases) -> None:
    created = use_cases.games.create_game(new_game(), KEY, request_fingerprint("c", "1"))
    game_id = json.loads(created.body)["game"]["id"]
    # Idle for longer than the retention, not for longer than its key is kept (24 h).
    retention = Retention(use_cases.storage, retention_days=0.5, batch_size=10)
    assert retention.sweep(utcnow() + timedelta(hours=13)).games == 1
    with use_cases.storage.unit_of_work(write=False) as uow:
        assert uow.games.state(game_id) is None
    with pytest.raises(NotFound):
        use_cases.games.create_game(new_game(), KEY, request_fingerprint("c", "1"))
