"""Undo and redo through the use cases, on both databases: undoing any suffix of a game's
changes leaves the game, its document and its reports as a game that never had them;
redoing them gives back the game that had them; the log stays append-only and always
replays to the stored state."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.domain.errors import NothingToRedo, NothingToUndo, ServiceError
from app.domain.game import GameState
from app.persistence.db import Database
from app.services.errors import (
    EventLimitReached,
    Forbidden,
    IdempotencyKeyReused,
    VersionMismatch,
)
from app.services.idempotency import request_fingerprint
from app.services.storage import Storage
from tests.services.conftest import Created, UseCases, create, new_game, wire
from tests.services.test_replay import _check_against_the_log
from tests.statements import count_statements
from tests.support.play_steps import PLAY_STEPS

KEY = "8f14e45f-ceea-467f-a0e6-1c5b0f3d2a71"


@pytest.fixture
def use_cases(storage: Storage) -> Iterator[UseCases]:
    yield wire(storage, max_events=200)


def _version(use_cases: UseCases, game: Created) -> int:
    with use_cases.storage.unit_of_work(write=False) as uow:
        stored = uow.games.version(game.id)
    assert stored is not None
    return stored.version


def _play(use_cases: UseCases, game: Created, step: tuple[Any, ...]) -> bool:
    """Play ``step`` as the host; whether it logged a change (the rules may refuse it, and
    a change that changes nothing logs none)."""
    before = _version(use_cases, game)
    _send(use_cases, game, step)
    return _version(use_cases, game) > before


def _send(use_cases: UseCases, game: Created, step: tuple[Any, ...]) -> None:
    kind, *args = step
    games, reports, host = use_cases.games, use_cases.reports, game.host
    try:
        if kind == "faith":
            games.set_faith(game.id, args[0], host, None, single=False)
        elif kind == "delta":
            games.change_faith(game.id, args[0], args[1], host, None, None, "f")
        elif kind == "leaders":
            games.set_leaders(game.id, args[0], args[1], host, None)
        elif kind == "turn_order":
            games.set_turn_order(game.id, args[0], host, None)
        elif kind == "decision":
            reports.set_decision(game.id, args[0], args[1], args[2], host, None)
        elif kind == "resolve":
            reports.resolve(game.id, args[0], args[1], host, None, None, "f")
        else:
            games.advance_round(game.id, host, None, None, "f")
    except ServiceError:
        pass


def _undo(use_cases: UseCases, game: Created) -> dict[str, Any]:
    return json.loads(use_cases.history.undo(game.id, game.host, None, None, "f").body)


def _redo(use_cases: UseCases, game: Created) -> dict[str, Any]:
    return json.loads(use_cases.history.redo(game.id, game.host, None, None, "f").body)


def _seen(use_cases: UseCases, game: Created) -> tuple[GameState, dict[str, Any], list[Any]]:
    """The stored state, the stored document and the three reports as clients read them."""
    with use_cases.storage.unit_of_work(write=False) as uow:
        stored, document = uow.games.state(game.id), uow.games.document(game.id)
    assert stored is not None and document is not None and document.document is not None
    presenter = use_cases.transactions.presenter
    reports = [json.loads(presenter.report(stored.state, period)) for period in (1, 2, 3)]
    return stored.state, json.loads(document.document), reports


def _plain(seen: tuple[GameState, dict[str, Any], list[Any]]) -> Any:
    """What must agree between two games played at other times, under other ids: all but
    their ids, versions, seqs and times (whether a report has a time, it must agree on)."""
    state, document, reports = seen
    state = replace(
        state,
        id="",
        version=0,
        undoable=tuple(replace(c, seq=0) for c in state.undoable),
        redoable=(),
        reports=tuple(replace(r, resolved_at=r.resolved_at is not None) for r in state.reports),  # type: ignore[arg-type]
    )
    document = {k: v for k, v in document.items() if k not in ("id", "version")}
    reports = [{**r, "resolved_at": r["resolved_at"] is not None} for r in reports]
    return state, document, reports


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    plays=st.lists(PLAY_STEPS, max_size=16), undone=st.integers(0, 16), track_rounds=st.booleans()
)
def test_undoing_a_suffix_is_never_having_made_it_and_redoing_it_is_having_made_it(
    use_cases: UseCases, plays: list[tuple[Any, ...]], undone: int, track_rounds: bool
) -> None:
    played = create(use_cases, new_game(track_rounds=track_rounds))
    stored = [step for step in plays if _play(use_cases, played, step)]
    undone = min(undone, len(stored))
    had = _seen(use_cases, played)
    for _ in range(undone):
        _undo(use_cases, played)
    never = create(use_cases, new_game(track_rounds=track_rounds))
    for step in stored[: len(stored) - undone]:
        assert _play(use_cases, never, step)
    assert _plain(_seen(use_cases, played)) == _plain(_seen(use_cases, never))
    _check_against_the_log(use_cases, played.id)

    for _ in range(undone):
        _redo(use_cases, played)
    state, document, reports = _seen(use_cases, played)
    assert state == replace(had[0], version=state.version)
    assert document == {**had[1], "version": state.version}
    assert reports == had[2]  # the outcomes and their times, as they were
    _check_against_the_log(use_cases, played.id)


def test_an_undo_answers_what_it_undid_and_what_undo_and_redo_would_take_next(
    use_cases: UseCases,
) -> None:
    game = create(use_cases)
    use_cases.games.set_faith(game.id, {"p1": 5}, game.host, None, single=False)
    use_cases.games.change_faith(game.id, "p1", 2, game.host, None, None, "f")
    answer = _undo(use_cases, game)
    assert answer["undone"] == {"seq": 3, "type": "faith_changed"}
    assert answer["undo"] == {"seq": 2, "type": "faith_set"}
    assert answer["redo"] == {"seq": 3, "type": "faith_changed"}
    assert answer["game"]["version"] == 4 and answer["game"]["players"][0]["faith"] == 5
    redone = _redo(use_cases, game)
    assert redone["redone"] == {"seq": 3, "type": "faith_changed"}
    assert (redone["undo"], redone["redo"]) == ({"seq": 3, "type": "faith_changed"}, None)
    with pytest.raises(NothingToRedo):
        _redo(use_cases, game)


def test_only_the_host_undoes_and_if_match_keeps_a_repeat_from_undoing_twice(
    use_cases: UseCases,
) -> None:
    game = create(use_cases)
    use_cases.games.set_faith(game.id, {"p1": 5}, game.host, None, single=False)
    use_cases.games.set_faith(game.id, {"p1": 7}, game.host, None, single=False)
    with pytest.raises(Forbidden):
        use_cases.history.undo(game.id, game.players["p1"], None, None, "f")
    use_cases.history.undo(game.id, game.host, {3}, None, "f")
    with pytest.raises(VersionMismatch):  # the same undo sent again: the game moved on
        use_cases.history.undo(game.id, game.host, {3}, None, "f")
    state = _seen(use_cases, game)[0]
    assert state.player("p1").faith == 5 and state.version == 4


def test_an_undo_retried_with_its_key_replays_and_undoes_once(use_cases: UseCases) -> None:
    game = create(use_cases)
    use_cases.games.set_faith(game.id, {"p1": 5}, game.host, None, single=False)
    use_cases.games.set_faith(game.id, {"p1": 7}, game.host, None, single=False)
    fingerprint = request_fingerprint("undoChange", game.id)
    first = use_cases.history.undo(game.id, game.host, None, KEY, fingerprint)
    again = use_cases.history.undo(game.id, game.host, None, KEY, fingerprint)
    assert (again.replayed, again.body) == (True, first.body)
    assert _seen(use_cases, game)[0].version == 4
    with pytest.raises(IdempotencyKeyReused):
        use_cases.history.undo(game.id, game.host, None, KEY, "another request")
    with pytest.raises(Forbidden):  # a replay still checks the token first
        use_cases.history.undo(game.id, game.players["p2"], None, KEY, fingerprint)


def test_nothing_to_undo_in_a_new_game_and_nothing_stored(use_cases: UseCases) -> None:
    game = create(use_cases)
    with pytest.raises(NothingToUndo):
        _undo(use_cases, game)
    assert _seen(use_cases, game)[0].version == 1


def test_a_full_log_refuses_an_undo_before_it_reads_the_log(migrated_database: Database) -> None:
    """The log's bound is what an undo may cost: on a full game it costs no replay."""
    use_cases = wire(migrated_database, max_events=3)
    game = create(use_cases)
    use_cases.games.set_faith(game.id, {"p1": 5}, game.host, None, single=False)
    use_cases.games.set_faith(game.id, {"p1": 6}, game.host, None, single=False)
    with (
        count_statements(migrated_database.engine) as statements,
        pytest.raises(EventLimitReached),
    ):
        _undo(use_cases, game)
    assert not [s for s in statements if "FROM events" in s], statements
