"""Admission of the requests that store: what they may take that other games share, and
when.

A change of a stored game runs on one of the request threads (``THREADPOOL_SIZE``) and
may wait there on a lock (another writer's row lock on PostgreSQL, the write lock on
SQLite) for up to ``DB_LOCK_TIMEOUT_MS``. So a change is admitted to a thread only

1. once its route is known and its body complete (a route reads its body on the event
   loop, before this), so a client that stalls holds nothing but its connection;
2. once its token is one of its game's (the same 404 and 401 the change itself would
   answer, read on the event loop where the database allows it, else for the length of
   one read that never waits for a writer), so a stranger holds nothing either; a token
   already admitted for a game is remembered (a bounded cache) and not read again, since
   the change authenticates again in its own transaction anyway;
3. when no other change of the same game is under way in this process (the game's turn,
   waited for on the event loop), so the changes of a game that is stuck (its row held
   locked, its changes slow or many) queue behind each other and hold at most one
   thread and one place in the queue for the shared write slots;
4. when one of the process's write slots is free: fewer than the threads, so a read
   always finds a thread; on SQLite one, since its writers all take the one write lock
   of the database anyway and are better queued here, in order, than polling for it.

Where the storage lets a change run on the event loop without ever waiting there, an
admitted change runs on the loop instead of a request thread, and on a thread only when it
would have waited (the storage says so before anything is stored): on a SQLite file every
unit of work of the request (``app/persistence/sqlite_loop_writes.py``; there a request
with an Idempotency-Key claims it in the transaction of its work,
``app/services/idempotency.py``), where on one write slot the thread only ever added its
hand-offs; on PostgreSQL a change that reads its game without a lock, read before and
stored after its code on the loop (``app/persistence/pg_loop_changes.py``), run again
while another writer stores first (``app/services/races.py``).

A recovery of the host seat carries no token: its recovery code takes the token's place
in 2 (404 for an unknown game, 401 for a code that is not the game's, unless its
Idempotency-Key was stored, whose retry its own transaction replays), so a stranger trying
codes holds neither a game's turn nor a write slot.

Waiting for 3 and 4 together is bounded by ``DB_POOL_TIMEOUT_MS``; past it the answer is
a 503 ``service-unavailable`` with ``Retry-After``, counted in
``write_gate_refused_total``. A game's creation has no game and no token yet: it waits
for a write slot only.

A route declares what it stores by one of the decorators below (``changes_game``,
``recovers_game``, ``creates_game``, ``stores_nothing``); its
:class:`~app.api.platform.explicit_route.ExplicitRoute` enters the admission around the
endpoint's call. A test checks that every route of the app that is not a ``GET`` declares one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import partial
from typing import Any, TypeVar

from prometheus_client import Counter
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from app.api.problems.catalogue import ServiceUnavailable
from app.services.races import rerun_lost_races_on_the_loop
from app.services.storage import WorkOnTheLoop, WouldWait
from app.services.tokens import hash_token

REFUSED = Counter(
    "write_gate_refused_total",
    "Changes answered 503 because the previous change of their game (waited_for=game) or "
    "a write slot (waited_for=slot) did not free up within DB_POOL_TIMEOUT_MS.",
    ["waited_for"],
)
OFF_THE_LOOP = Counter(
    "changes_run_again_on_a_thread_total",
    "Changes begun on the event loop that needed what the loop does not wait for (the "
    "database's lock on SQLite; a row lock, an Idempotency-Key or a lost race on "
    "PostgreSQL) before storing anything, and ran again on a request thread.",
)

#: The name of the attribute a declaration sets on an endpoint.
_DECLARED = "__stores__"
#: Admitted (game, token hash) pairs remembered per process.
ADMITTED_CACHE_SIZE = 4096

E = TypeVar("E", bound=Callable[..., Any])
CheckAccess = Callable[[str, str | None], Awaitable[object]]
#: ``(game_id, recovery_code, idempotency_key)``: raises what a recovery would (404, 401).
CheckRecovery = Callable[[str, str, str | None], Awaitable[object]]


class Stores(Enum):
    """What a route's request may store, declared on its endpoint."""

    #: A change of the stored game named by its ``game_id``, sent with its ``token``.
    GAME_CHANGE = "a change of one stored game"
    #: A change of the stored game named by its ``game_id`` sent with no token: the secret
    #: its ``body`` carries (the host's recovery code) is checked in place of a token.
    GAME_RECOVERY = "a change of one stored game by a secret of its own"
    #: A new game.
    GAME_CREATION = "a new game"
    #: Nothing: it computes from its request (and may read a stored game).
    NOTHING = "nothing"


def _declare(stores: Stores) -> Callable[[E], E]:
    def declare(endpoint: E) -> E:
        setattr(endpoint, _DECLARED, stores)
        return endpoint

    return declare


#: The endpoint changes the game of its ``game_id`` path parameter, authenticated by its
#: ``token`` parameter: admitted as a change (steps 1 to 4 above).
changes_game = _declare(Stores.GAME_CHANGE)
#: The endpoint changes the game of its ``game_id`` path parameter with no token, by the
#: ``recovery_code`` of its ``body`` (sent with its ``key``): admitted as a change once
#: that code is checked, so a stranger trying codes holds no turn and no write slot.
recovers_game = _declare(Stores.GAME_RECOVERY)
#: The endpoint creates a game: it waits for a write slot.
creates_game = _declare(Stores.GAME_CREATION)
#: The endpoint stores nothing: admitted at once.
stores_nothing = _declare(Stores.NOTHING)


def declared(endpoint: Callable[..., Any]) -> Stores | None:
    """What ``endpoint`` was declared to store, or None when it was not."""
    stores = getattr(endpoint, _DECLARED, None)
    return stores if isinstance(stores, Stores) else None


@dataclass(frozen=True, slots=True)
class Admitted:
    """The names of the endpoint parameters a change is admitted by."""

    stores: Stores
    game_param: str = "game_id"
    token_param: str = "token"
    body_param: str = "body"
    key_param: str = "key"

    @classmethod
    def of(cls, endpoint: Callable[..., Any], params: set[str], where: str) -> Admitted | None:
        """How a route whose endpoint takes ``params`` is admitted; None: at once."""
        stores = declared(endpoint)
        if stores is None or stores is Stores.NOTHING:
            return None
        admitted = cls(stores)
        if (
            stores is Stores.GAME_CHANGE
            and not {admitted.game_param, admitted.token_param} <= params
        ):
            raise TypeError(
                f"{where}: a route that changes a game takes its "
                f"{admitted.game_param!r} and {admitted.token_param!r}"
            )
        recovery = {admitted.game_param, admitted.body_param, admitted.key_param}
        if stores is Stores.GAME_RECOVERY and not recovery <= params:
            raise TypeError(f"{where}: a route that recovers a game takes its {sorted(recovery)}")
        return admitted

    def game_changed(self, values: Mapping[str, Any]) -> str | None:
        """The game a request of this route changes with its token, if it does."""
        return values[self.game_param] if self.stores is Stores.GAME_CHANGE else None

    def enter(
        self, request: Request, values: Mapping[str, Any]
    ) -> contextlib.AbstractAsyncContextManager[WriteAdmission]:
        """The admission of this request, whose endpoint will be called with ``values``
        (by the admission's :meth:`WriteAdmission.call`, when it is not async)."""
        gate: WriteAdmission = request.app.state.write_admission
        if self.stores is Stores.GAME_CHANGE:
            return gate.change(values[self.game_param], values[self.token_param])
        if self.stores is Stores.GAME_RECOVERY:
            return gate.recovery(
                values[self.game_param],
                values[self.body_param].recovery_code,
                values[self.key_param],
            )
        return gate.creation()


class WriteAdmission:
    """One process's admission of changes (see the module's docstring).

    ``check_access(game_id, token)`` raises what the change would for a token that may not
    change the game (404 ``not-found``, 401 ``unauthorized``); ``check_recovery`` the same
    for a recovery's code.
    """

    def __init__(
        self,
        *,
        slots: int,
        wait_s: float,
        check_access: CheckAccess,
        check_recovery: CheckRecovery,
        on_the_loop: WorkOnTheLoop | None = None,
    ) -> None:
        self.slots = slots
        self.wait_s = wait_s
        self._check_access = check_access
        self._check_recovery = check_recovery
        self._on_the_loop = on_the_loop
        self._admitted: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._turns: dict[str, _Turn] = {}
        self._slots = asyncio.Semaphore(slots)

    @contextlib.asynccontextmanager
    async def change(self, game_id: str, token: str | None) -> AsyncIterator[WriteAdmission]:
        await self._check(game_id, token)
        self._follow_running_loop()
        deadline = asyncio.get_running_loop().time() + self.wait_s
        async with self._turn(game_id, deadline), self._slot(deadline):
            yield self

    @contextlib.asynccontextmanager
    async def recovery(
        self, game_id: str, recovery_code: str, key: str | None
    ) -> AsyncIterator[WriteAdmission]:
        await self._check_recovery(game_id, recovery_code, key)
        self._follow_running_loop()
        deadline = asyncio.get_running_loop().time() + self.wait_s
        async with self._turn(game_id, deadline), self._slot(deadline):
            yield self

    @contextlib.asynccontextmanager
    async def creation(self) -> AsyncIterator[WriteAdmission]:
        self._follow_running_loop()
        async with self._slot(asyncio.get_running_loop().time() + self.wait_s):
            yield self

    async def call(
        self, endpoint: Callable[..., Any], values: Mapping[str, Any], game_id: str | None
    ) -> Any:
        """What the admitted sync ``endpoint`` answers to ``values``: run on the event loop
        where the storage allows it (for the change of ``game_id``, if it changes one),
        else, or when it would have waited there, on a request thread."""
        on_the_loop = self._on_the_loop
        if on_the_loop is not None:
            work = partial(endpoint, **values)
            try:
                return await rerun_lost_races_on_the_loop(lambda: on_the_loop.run(work, game_id))
            except WouldWait:
                OFF_THE_LOOP.inc()
        return await run_in_threadpool(endpoint, **values)

    def busy_games(self) -> int:
        """Games with a change under way or waiting, in this process."""
        return len(self._turns)

    async def _check(self, game_id: str, token: str | None) -> None:
        if token is None:  # nothing to remember: the check answers 404 or 401
            await self._check_access(game_id, token)
            return
        key = (game_id, hash_token(token))
        if key in self._admitted:
            self._admitted.move_to_end(key)
            return
        await self._check_access(game_id, token)
        self._admitted[key] = None
        if len(self._admitted) > ADMITTED_CACHE_SIZE:
            self._admitted.popitem(last=False)

    @contextlib.asynccontextmanager
    async def _turn(self, game_id: str, deadline: float) -> AsyncIterator[None]:
        turn = self._turns.get(game_id)
        if turn is None:
            turn = self._turns[game_id] = _Turn()
        turn.holders += 1
        try:
            # Alone on the game's turn, the lock is free and taken without waiting: no timer.
            if not await _acquired(turn.lock, deadline, free=turn.holders == 1):
                REFUSED.labels("game").inc()
                raise ServiceUnavailable(
                    "Another change held what this one needs (an earlier change of this "
                    f"game, still under way after {self.wait_s * 1000:.0f} ms); retry shortly."
                ) from None
            try:
                yield
            finally:
                turn.lock.release()
        finally:
            turn.holders -= 1
            if turn.holders == 0:
                del self._turns[game_id]

    @contextlib.asynccontextmanager
    async def _slot(self, deadline: float) -> AsyncIterator[None]:
        if not await _acquired(self._slots, deadline, free=not self._slots.locked()):
            REFUSED.labels("slot").inc()
            raise ServiceUnavailable(
                f"{self.slots} changes are already waiting on the database; retry shortly."
            ) from None
        try:
            yield
        finally:
            self._slots.release()

    def _follow_running_loop(self) -> None:
        """Locks and the semaphore belong to one event loop: a new loop (a test's second
        client, say) starts with none of the old loop's waiters."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop = loop
            self._turns = {}
            self._slots = asyncio.Semaphore(self.slots)


async def _acquired(lock: asyncio.Lock | asyncio.Semaphore, deadline: float, *, free: bool) -> bool:
    """Whether ``lock`` was acquired by loop time ``deadline``. One the caller knows is
    ``free`` is acquired at once, without the timer a bounded wait costs."""
    if free:
        await lock.acquire()
        return True
    try:
        async with asyncio.timeout_at(deadline):
            await lock.acquire()
    except TimeoutError:
        return False
    return True


class _Turn:
    """A game's turn: the lock its changes take one at a time, and how many hold or wait
    for it (the entry goes when none do, so only games with changes in flight cost)."""

    __slots__ = ("holders", "lock")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.holders = 0
