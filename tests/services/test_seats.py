"""Seats through the use cases, on both databases: a new token refuses the old one at once,
a revoked token is refused, the recovery code regains the host seat once, every token
change is logged without a secret and none can be undone."""

from __future__ import annotations

import asyncio
import json

import pytest

from app.domain.errors import InvalidInput, NotFound, NothingToUndo
from app.services.errors import Forbidden, Unauthorized
from app.services.idempotency import request_fingerprint
from app.services.tokens import hash_recovery_code
from tests.services.conftest import Created, UseCases, create

KEY = "3b8f5c1e-9a7d-4e2b-8c6f-0d1e2f3a4b5c"


def _version(use_cases: UseCases, game: Created, token: str) -> int:
    return asyncio.run(use_cases.games.current_version(game.id, token))


def _logged(use_cases: UseCases, game: Created) -> list[tuple[str, dict[str, object]]]:
    with use_cases.storage.unit_of_work(write=False) as uow:
        return [(e.type, e.data) for e in uow.events.list_after(game.id, 1, 100)]


def test_a_seat_issued_a_new_token_refuses_the_old_one_at_once(use_cases: UseCases) -> None:
    game = create(use_cases)
    answer = use_cases.seats.issue_token(game.id, "p2", game.host, None, None, "f")
    new = json.loads(answer.body)
    assert (new["seat"], answer.version) == ("p2", 2)
    with pytest.raises(Unauthorized):
        _version(use_cases, game, game.players["p2"])
    assert _version(use_cases, game, new["token"]) == 2
    assert _version(use_cases, game, game.players["p1"]) == 2  # the others keep theirs
    assert _logged(use_cases, game) == [
        ("seat_token_changed", {"seat": "p2", "change": "reissued"})
    ]
    assert new["token"] not in json.dumps(_logged(use_cases, game))


def test_the_host_seat_moves_to_another_device(use_cases: UseCases) -> None:
    game = create(use_cases)
    moved = json.loads(
        use_cases.seats.issue_token(game.id, "host", game.host, None, None, "f").body
    )
    with pytest.raises(Unauthorized):
        use_cases.games.set_faith(game.id, {"p1": 3}, game.host, None, single=False)
    use_cases.games.set_faith(game.id, {"p1": 3}, moved["token"], None, single=False)


def test_moving_the_host_seat_retried_with_its_key_and_the_old_token_replays(
    use_cases: UseCases,
) -> None:
    game = create(use_cases)
    fingerprint = request_fingerprint("issueSeatToken", game.id, "host")
    first = use_cases.seats.issue_token(game.id, "host", game.host, None, KEY, fingerprint)
    again = use_cases.seats.issue_token(game.id, "host", game.host, None, KEY, fingerprint)
    assert (again.replayed, again.body) == (True, first.body)
    assert _version(use_cases, game, json.loads(first.body)["token"]) == 2  # once


def test_only_the_host_changes_seats_and_an_unknown_seat_is_not_found(
    use_cases: UseCases,
) -> None:
    game = create(use_cases)
    with pytest.raises(NotFound):
        use_cases.seats.issue_token(game.id, "p9", game.players["p1"], None, None, "f")
    with pytest.raises(Forbidden):
        use_cases.seats.issue_token(game.id, "p1", game.players["p1"], None, None, "f")
    with pytest.raises(Forbidden):
        use_cases.seats.revoke_token(game.id, "p2", game.players["p1"], None)
    with pytest.raises(InvalidInput):
        use_cases.seats.revoke_token(game.id, "host", game.host, None)
    assert _version(use_cases, game, game.host) == 1


def test_a_revoked_token_is_refused_until_the_seat_gets_a_new_one(use_cases: UseCases) -> None:
    game = create(use_cases)
    assert use_cases.seats.revoke_token(game.id, "p3", game.host, {1}) == 2
    with pytest.raises(Unauthorized):
        _version(use_cases, game, game.players["p3"])
    assert use_cases.seats.revoke_token(game.id, "p3", game.host, None) == 2  # nothing logged
    # The host acts for the seat meanwhile.
    use_cases.games.set_faith(game.id, {"p3": 4}, game.host, None, single=False)
    use_cases.reports.set_decision(game.id, 1, "p3", "support", game.host, None)
    new = json.loads(use_cases.seats.issue_token(game.id, "p3", game.host, None, None, "f").body)
    assert _version(use_cases, game, new["token"]) == 5
    assert [data for kind, data in _logged(use_cases, game) if kind == "seat_token_changed"] == [
        {"seat": "p3", "change": "revoked"},
        {"seat": "p3", "change": "reissued"},
    ]


def test_the_recovery_code_regains_the_host_seat_once(use_cases: UseCases) -> None:
    game = create(use_cases)
    fingerprint = request_fingerprint("recoverHostSeat", game.id, game.recovery_code)
    code = game.recovery_code.lower().replace("-", " ")  # as a person may type it
    answer = use_cases.seats.recover_host_seat(game.id, code, KEY, fingerprint)
    recovered = json.loads(answer.body)
    assert recovered["recovery_code"] != game.recovery_code
    with pytest.raises(Unauthorized):
        _version(use_cases, game, game.host)
    assert _version(use_cases, game, recovered["host_token"]) == 2
    replay = use_cases.seats.recover_host_seat(game.id, code, KEY, fingerprint)
    assert (replay.replayed, replay.body) == (True, answer.body)
    with pytest.raises(Unauthorized):  # the old code is spent
        use_cases.seats.recover_host_seat(game.id, game.recovery_code, None, "f")
    again = use_cases.seats.recover_host_seat(game.id, recovered["recovery_code"], None, "f")
    assert _version(use_cases, game, json.loads(again.body)["host_token"]) == 3
    with use_cases.storage.unit_of_work(write=False) as uow:
        stored = uow.games.state(game.id)
    assert stored is not None
    assert stored.credentials.recovery_code_hash == hash_recovery_code(
        json.loads(again.body)["recovery_code"]
    )
    assert [data for _, data in _logged(use_cases, game)] == [
        {"seat": "host", "change": "recovered"}
    ] * 2


def test_a_wrong_recovery_code_is_refused_and_changes_nothing(use_cases: UseCases) -> None:
    game = create(use_cases)
    with pytest.raises(Unauthorized):
        use_cases.seats.recover_host_seat(game.id, "AAAA-" * 7 + "AAAA", None, "f")
    with pytest.raises(NotFound):
        use_cases.seats.recover_host_seat("0" * 32, game.recovery_code, None, "f")
    assert _version(use_cases, game, game.host) == 1


def test_token_changes_are_not_changes_of_play(use_cases: UseCases) -> None:
    game = create(use_cases)
    use_cases.games.set_faith(game.id, {"p1": 5}, game.host, None, single=False)
    use_cases.history.undo(game.id, game.host, None, None, "f")
    use_cases.seats.issue_token(game.id, "p1", game.host, None, None, "f")
    use_cases.seats.revoke_token(game.id, "p2", game.host, None)
    redone = json.loads(use_cases.history.redo(game.id, game.host, None, None, "f").body)
    assert redone["redone"]["type"] == "faith_set"  # the token changes cleared nothing
    use_cases.history.undo(game.id, game.host, None, None, "f")
    with pytest.raises(NothingToUndo):  # and are not undone
        use_cases.history.undo(game.id, game.host, None, None, "f")
