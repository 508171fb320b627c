"""Changes that read their game without a lock (PostgreSQL, ``reruns_lost_races``): one
that another writer overtook stores nothing and runs again on the newer game, and its last
attempt locks, so no change is lost and a hot game still makes progress."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from app.domain import game as rules
from app.persistence.db import Database
from app.services.transactions import LOST_RACES, RACE_ATTEMPTS, reruns_lost_races
from tests.conftest import truncate_all
from tests.services.conftest import UseCases, create, wire
from tests.statements import count_statements

pytestmark = pytest.mark.postgres  # SQLite's write transactions lock before they read


@pytest.fixture
def use_cases(postgres_migrated_url: str) -> Iterator[UseCases]:
    truncate_all(postgres_migrated_url)
    database = Database(postgres_migrated_url)
    try:
        yield wire(database)
    finally:
        database.dispose()


def _in_another_thread(work: Callable[[], object]) -> None:
    """Run ``work`` to its end in another thread, as another request would."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # reported to the test thread
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive() and errors == []


def test_a_change_overtaken_by_another_writer_runs_again_on_the_newer_game(
    use_cases: UseCases,
) -> None:
    game = create(use_cases)
    seen: list[tuple[int, int]] = []  # (version, p1's faith) each attempt read

    def another_writer_sets_p2() -> None:
        use_cases.games.set_faith(game.id, {"p2": 5}, game.host, None, single=False)

    @reruns_lost_races
    def add_one_to_p1() -> int:
        with use_cases.transactions.changing(game.id, game.host) as change:
            seen.append((change.game.version, change.game.player("p1").faith))
            if len(seen) == 1:
                _in_another_thread(another_writer_sets_p2)
            change.check_version(None)
            change.apply(rules.set_faith(change.game, {"p1": seen[-1][1] + 1}))
        return change.game.version

    reruns = LOST_RACES._value.get()
    assert add_one_to_p1() == 3
    assert LOST_RACES._value.get() == reruns + 1  # game_change_reruns_total, on /metrics
    assert seen == [(1, 0), (2, 0)]  # the first attempt lost, the second read version 2
    with use_cases.storage.unit_of_work(write=False) as uow:
        logged = uow.events.list_after(game.id, 1, 10)
    assert [(e.seq, e.data["changes"][0]["player_id"]) for e in logged] == [(2, "p2"), (3, "p1")]


def test_the_last_attempt_locks_the_game_so_a_hot_game_still_progresses(
    use_cases: UseCases,
) -> None:
    game = create(use_cases)
    attempts = 0

    def another_writer() -> None:
        # A different order each time: setting the same one again would change nothing.
        order = ["p3", "p2", "p1"] if attempts % 2 else ["p1", "p2", "p3"]
        use_cases.games.set_turn_order(game.id, order, game.host, None)

    @reruns_lost_races
    def change_leaders() -> None:
        nonlocal attempts
        with use_cases.transactions.changing(game.id, game.host) as change:
            attempts += 1
            if attempts < RACE_ATTEMPTS:  # overtaken every time it reads without a lock
                _in_another_thread(another_writer)
            change.check_version(None)
            change.apply(rules.set_leaders(change.game, "p1", ["sisto_iv"]))

    assert isinstance(use_cases.storage, Database)
    with count_statements(use_cases.storage.engine) as statements:
        change_leaders()
    reads = [s for s in statements if s.lstrip().startswith("SELECT games.version")]
    assert attempts == RACE_ATTEMPTS
    # Ours and the other writer's (also unlocked) alternate; only our last one locks.
    locked = ["FOR UPDATE" in read for read in reads]
    assert locked == [False] * (2 * (RACE_ATTEMPTS - 1)) + [True]
    with use_cases.storage.unit_of_work(write=False) as uow:
        logged = uow.events.list_after(game.id, 1, 10)
    assert [e.type for e in logged] == ["turn_order_set"] * (RACE_ATTEMPTS - 1) + ["leaders_set"]
