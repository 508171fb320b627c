"""A completed Idempotency-Key's outcome is kept in the columns release 1.1 wrote (its
answer's status and headers): each release replays a key the other completed, so a
rolling upgrade replays every key exactly once either way."""

from __future__ import annotations

import pytest

from app.persistence.key_answers import answer_columns, answer_from
from app.services.stored import Outcome

GAME = "0" * 32


@pytest.mark.parametrize("outcome", [o for o in Outcome if o is not Outcome.GAME_DELETED])
def test_each_outcome_reads_back_as_it_was_kept(outcome: Outcome) -> None:
    columns = answer_columns(outcome, GAME, 7)
    assert answer_from(columns["status_code"], columns["headers"]) == (outcome, 7)


def test_a_deleted_games_key_reads_back_as_deleted() -> None:
    columns = answer_columns(Outcome.GAME_DELETED, None, None)
    assert columns == {"status_code": 404, "headers": None}
    assert answer_from(404, None) == (Outcome.GAME_DELETED, None)


def test_keys_written_by_release_1_1_replay_with_their_outcome() -> None:
    created = {"Location": f"/v1/games/{GAME}", "ETag": '"1"'}
    assert answer_from(201, created) == (Outcome.GAME_CREATED, 1)
    assert answer_from(201, {"ETag": '"4"'}) == (Outcome.REPORT_RESOLVED, 4)
    assert answer_from(200, {"ETag": '"3"'}) == (Outcome.GAME_CHANGED, 3)


def test_a_key_in_flight_has_no_outcome() -> None:
    assert answer_from(None, None) == (None, None)


def test_keys_completed_now_carry_what_release_1_1_replays() -> None:
    """1.1 replays the status and the headers as they are."""
    assert answer_columns(Outcome.GAME_CREATED, GAME, 1) == {
        "status_code": 201,
        "headers": {"Location": f"/v1/games/{GAME}", "ETag": '"1"'},
    }
    assert answer_columns(Outcome.REPORT_RESOLVED, GAME, 4)["headers"] == {"ETag": '"4"'}
