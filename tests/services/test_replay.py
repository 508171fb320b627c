"""The state and the read model never disagree with the event log: after any sequence of
changes (refused ones included), replaying a game's events gives the stored state, and the
stored document is that state rendered."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.domain.errors import ServiceError
from app.domain.game import GameEvent, replay
from tests.services.conftest import UseCases, create, new_game
from tests.settings import examples

PLAYERS = ["p1", "p2", "p3", "p4"]
choices = st.sampled_from(["support", "refuse"])
steps = st.one_of(
    st.tuples(
        st.just("faith"), st.dictionaries(st.sampled_from(PLAYERS), st.integers(0, 20), min_size=1)
    ),
    st.tuples(
        st.just("leaders"),
        st.sampled_from(PLAYERS),
        st.lists(
            st.sampled_from(["sisto_iv", "santa_rita", "martin_lutero"]), max_size=2, unique=True
        ),
    ),
    st.tuples(st.just("turn_order"), st.permutations(PLAYERS)),
    st.tuples(st.just("decision"), st.integers(1, 3), st.sampled_from(PLAYERS), choices),
    st.tuples(st.just("resolve"), st.integers(1, 3), st.one_of(st.none(), choices)),
)


def _play(use_cases: UseCases, game_id: str, host: str, step: tuple[Any, ...]) -> None:
    games, reports = use_cases.games, use_cases.reports
    kind, *args = step
    try:
        if kind == "faith":
            games.set_faith(game_id, args[0], host, None, single=False)
        elif kind == "leaders":
            games.set_leaders(game_id, args[0], args[1], host, None)
        elif kind == "turn_order":
            games.set_turn_order(game_id, args[0], host, None)
        elif kind == "decision":
            reports.set_decision(game_id, args[0], args[1], args[2], host, None)
        else:
            reports.resolve(game_id, args[0], args[1], host, None, None, "f")
    except ServiceError:
        pass  # refused by the rules: it must have written nothing


def _check_against_the_log(use_cases: UseCases, game_id: str) -> None:
    with use_cases.storage.unit_of_work(write=False) as uow:
        stored = uow.games.state(game_id)
        document = uow.games.document(game_id)
        log = uow.events.list_after(game_id, 0, 10_000)
    assert stored is not None and document is not None
    replayed = replay(game_id, [(e.seq, e.at, GameEvent(e.type, e.data)) for e in log])  # type: ignore[arg-type]
    assert [e.seq for e in log] == list(range(1, stored.state.version + 1))
    assert replayed == stored.state
    assert document.version == replayed.version
    assert document.document == use_cases.transactions.presenter.game(replayed)


@settings(
    max_examples=examples(25),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plays=st.lists(steps, max_size=25))
def test_replaying_the_log_gives_the_stored_state_and_document(
    use_cases: UseCases, plays: list[tuple[Any, ...]]
) -> None:
    game = create(use_cases, new_game("Anna", "Bruno", "Carla", "Dario"))
    for step in plays:
        _play(use_cases, game.id, game.host, step)
    _check_against_the_log(use_cases, game.id)
