"""The admission of changes (``app/api/platform/admission.py``), in process: every route that may
store declares what it stores; a change is admitted after its token is checked, one per
game at a time, within a bounded wait; what it remembers stays bounded. The real server
under the attacks is ``tests/edge/test_edge_write_admission.py``."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import APIRouter, Response

from app.api.platform import admission
from app.api.platform.admission import Stores, WriteAdmission, declared
from app.api.platform.explicit_route import ExplicitRoute
from app.api.problems.catalogue import ServiceUnavailable
from app.main import create_app
from app.services.errors import Unauthorized
from app.settings import Settings


def test_every_route_that_may_store_declares_what_it_stores() -> None:
    """A new change route gets its admission by declaring it (``@changes_game``); one
    that declares nothing would take a request thread however its client behaves."""
    app = create_app(Settings(database_url="sqlite:///:memory:"))
    undeclared = [
        f"{sorted(route.methods)} {route.path}"
        for route in app.routes
        if isinstance(route, ExplicitRoute)
        and route.methods - {"GET", "HEAD"}
        and declared(route.endpoint) is None
    ]
    assert undeclared == []
    changes = sorted(
        route.path
        for route in app.routes
        if isinstance(route, ExplicitRoute) and declared(route.endpoint) is Stores.GAME_CHANGE
    )
    assert "/v1/games/{game_id}/faith" in changes
    assert "/v1/games/{game_id}/reports/{period}/resolution" in changes


def test_a_change_route_must_take_its_game_and_token() -> None:
    def change(thing_id: str) -> Response:
        return Response()

    router = APIRouter(route_class=ExplicitRoute)
    with pytest.raises(TypeError, match="takes its 'game_id' and 'token'"):
        router.put("/v1/things/{thing_id}")(admission.changes_game(change))


async def no_recovery(game_id: str, recovery_code: str, key: str | None) -> None:
    raise AssertionError("these gates admit no recovery")


class Access:
    """A stand-in for the game service's check: counts its calls, refuses ``bad``."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, game_id: str, token: str | None) -> int:
        self.calls += 1
        await asyncio.sleep(0)
        if token != "good":
            raise Unauthorized("This token does not belong to this game.")
        return 1


async def test_an_admitted_token_is_not_read_again_a_refused_one_always_is() -> None:
    access = Access()
    gate = WriteAdmission(slots=2, wait_s=1.0, check_access=access, check_recovery=no_recovery)
    for _ in range(3):
        async with gate.change("g1", "good"):
            pass
    assert access.calls == 1
    for _ in range(3):
        with pytest.raises(Unauthorized):
            async with gate.change("g1", "bad"):
                pass
    assert access.calls == 4
    assert gate.busy_games() == 0


async def test_the_admitted_tokens_remembered_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admission, "ADMITTED_CACHE_SIZE", 10)
    access = Access()
    gate = WriteAdmission(slots=2, wait_s=1.0, check_access=access, check_recovery=no_recovery)
    for i in range(100):
        async with gate.change(f"g{i}", "good"):
            pass
    assert len(gate._admitted) == 10
    async with gate.change("g0", "good"):  # forgotten: read again
        pass
    assert access.calls == 101


async def test_changes_of_one_game_run_one_at_a_time_and_others_pass_them() -> None:
    gate = WriteAdmission(slots=3, wait_s=5.0, check_access=Access(), check_recovery=no_recovery)
    order: list[str] = []
    first_in = asyncio.Event()
    release = asyncio.Event()

    async def slow_change_of_g1() -> None:
        async with gate.change("g1", "good"):
            order.append("g1 first")
            first_in.set()
            await release.wait()

    async def second_change_of_g1() -> None:
        await first_in.wait()
        async with gate.change("g1", "good"):
            order.append("g1 second")

    async def change_of_g2() -> None:
        await first_in.wait()
        await asyncio.sleep(0.05)  # after g1's second change queued
        async with gate.change("g2", "good"):
            order.append("g2")
        release.set()

    await asyncio.gather(slow_change_of_g1(), second_change_of_g1(), change_of_g2())
    assert order == ["g1 first", "g2", "g1 second"]
    assert gate.busy_games() == 0


async def test_a_change_waiting_past_the_bound_is_refused_and_counted() -> None:
    gate = WriteAdmission(slots=3, wait_s=0.2, check_access=Access(), check_recovery=no_recovery)
    held = asyncio.Event()
    done = asyncio.Event()
    before = admission.REFUSED.labels("game")._value.get()

    async def holder() -> None:
        async with gate.change("g1", "good"):
            held.set()
            await done.wait()

    task = asyncio.create_task(holder())
    await held.wait()
    with pytest.raises(ServiceUnavailable, match="Another change held what this one needs"):
        async with gate.change("g1", "good"):
            pass
    done.set()
    await task
    assert admission.REFUSED.labels("game")._value.get() == before + 1
    assert gate.busy_games() == 0


async def test_a_creation_waits_for_a_write_slot_only() -> None:
    gate = WriteAdmission(slots=1, wait_s=0.2, check_access=Access(), check_recovery=no_recovery)
    before = admission.REFUSED.labels("slot")._value.get()
    async with gate.change("g1", "good"):
        with pytest.raises(ServiceUnavailable, match="1 changes are already waiting"):
            async with gate.creation():
                pass
    async with gate.creation():
        pass
    assert admission.REFUSED.labels("slot")._value.get() == before + 1
