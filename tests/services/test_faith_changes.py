"""Faith changes through the use cases, on both databases: the answer says what was lost and
applied, the access rule is setting faith's, and a retry with its key adds nothing."""

from __future__ import annotations

import json

import pytest

from app.domain.errors import InvalidInput, NotFound
from app.services.errors import Forbidden, IdempotencyKeyReused
from app.services.idempotency import request_fingerprint
from app.services.stored import Outcome
from tests.services.conftest import UseCases, create, new_game

KEY = "0b6d2f1a-5c3e-4a7b-9d8e-1f2a3b4c5d6e"


def test_a_change_answers_the_player_what_was_lost_and_what_was_applied(
    use_cases: UseCases,
) -> None:
    game = create(use_cases)
    use_cases.games.set_faith(game.id, {"p1": 13}, game.host, None, single=True)
    answer = use_cases.games.change_faith(game.id, "p1", 4, game.host, {2}, None, "f")
    body = json.loads(answer.body)
    assert (answer.outcome, answer.version) == (Outcome.GAME_CHANGED, 3)
    assert (body["player"]["faith"], body["faith_lost"], body["applied"]) == (15, 2, 2)
    floored = json.loads(
        use_cases.games.change_faith(game.id, "p2", -3, game.host, None, None, "f").body
    )
    assert (floored["player"]["faith"], floored["faith_lost"], floored["applied"]) == (0, 0, 0)


def test_who_may_change_faith_is_who_may_set_it(use_cases: UseCases) -> None:
    closed, open_ = create(use_cases), create(use_cases, new_game(players_enter_faith=True))
    with pytest.raises(Forbidden):
        use_cases.games.change_faith(closed.id, "p1", 1, closed.players["p1"], None, None, "f")
    with pytest.raises(Forbidden):
        use_cases.games.change_faith(open_.id, "p2", 1, open_.players["p1"], None, None, "f")
    mine = use_cases.games.change_faith(open_.id, "p1", 1, open_.players["p1"], None, None, "f")
    assert json.loads(mine.body)["player"]["faith"] == 1
    with pytest.raises(NotFound):
        use_cases.games.change_faith(closed.id, "p9", 1, closed.host, None, None, "f")
    with pytest.raises(InvalidInput):
        use_cases.games.change_faith(closed.id, "p1", 0, closed.host, None, None, "f")


def test_a_change_retried_with_its_key_replays_and_adds_once(use_cases: UseCases) -> None:
    game = create(use_cases)
    fingerprint = request_fingerprint("changePlayerFaith", game.id, "p1", '{"delta":2}')
    first = use_cases.games.change_faith(game.id, "p1", 2, game.host, None, KEY, fingerprint)
    again = use_cases.games.change_faith(game.id, "p1", 2, game.host, None, KEY, fingerprint)
    assert (again.replayed, again.body) == (True, first.body)
    version, events = use_cases.games.list_events(game.id, 0, 100, game.host)
    assert version == 2 and [e.type for e in events] == ["game_created", "faith_changed"]
    assert events[1].data == {"player_id": "p1", "delta": 2, "from": 0, "to": 2, "lost": 0}
    with pytest.raises(IdempotencyKeyReused):
        use_cases.games.change_faith(game.id, "p1", 3, game.host, None, KEY, "other body")
    with pytest.raises(Forbidden):  # a replay checks the token first
        use_cases.games.change_faith(game.id, "p1", 2, game.players["p1"], None, KEY, fingerprint)
