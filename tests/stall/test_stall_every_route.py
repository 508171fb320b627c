"""The outage contract, with the default settings: PostgreSQL frozen (SIGSTOP on a
PRIVATE cluster's postmaster and backends), every stored route answers 503
``service-unavailable`` with Retry-After within 10 s, with ``DB_ASYNC_READS`` on and
off, alone and all at once; once the cluster is resumed the same process serves every
route again, with no restart. Against a real ``python -m app``."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from tests.integration.support import PrivatePostgres, Server
from tests.stall.freeze import (
    assert_refused_within_the_bound,
    fire,
    frozen,
    recovered,
    timed_call,
)
from tests.stall.stall_support import client
from tests.stall.stored_routes import new_game, stored_calls

pytestmark = pytest.mark.postgres

MODES = pytest.mark.parametrize("async_reads", [True, False], ids=["async-reads", "thread-reads"])


def test_each_stored_route_alone_answers_503_within_the_bound(
    both_servers: dict[str, Server], cluster: PrivatePostgres
) -> None:
    """One request at a time in each process, each with the cluster frozen afresh: each
    route's own path to the database is bounded (the async read used to wait out psycopg's
    cancel: 15 s). The two processes (async reads on and off) wait out each freeze side by
    side, one request each: the test waits out each bound once, not twice."""

    async def scenario() -> None:
        async with contextlib.AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(client(s.base_url)) for s in both_servers.values()
            ]
            answers = []
            probe = await new_game(clients[0])
            for index in range(len(stored_calls(probe))):
                games = [await new_game(http) for http in clients]
                for http, game in zip(clients, games, strict=True):
                    for _ in range(3):  # a warm pool, as in steady use
                        await http.get(game.url, headers=game.auth)
                calls = [stored_calls(game)[index] for game in games]
                with frozen(cluster.data):
                    answers += await asyncio.gather(
                        *(timed_call(http, call) for http, call in zip(clients, calls, strict=True))
                    )
                for http, game in zip(clients, games, strict=True):
                    await recovered(http, game.url, game.auth)
            print("\n" + "\n".join(map(str, answers)))
            assert_refused_within_the_bound(answers)

    asyncio.run(scenario())


@MODES
def test_every_stored_route_at_once_answers_503_within_the_bound_then_serves_again(
    server: Server, cluster: PrivatePostgres
) -> None:
    """Two of every route at once (more than the threads, the connections and the write
    slots): none waits out a bound behind another; resumed, every route answers again."""

    async def scenario() -> None:
        async with client(server.base_url) as http:
            games = [await new_game(http) for _ in range(2)]
            for game in games:
                await http.get(game.url, headers=game.auth)
            calls = [call for game in games for call in stored_calls(game)]
            with frozen(cluster.data):
                answers = await fire(http, calls)
            print("\n" + "\n".join(map(str, answers)))
            assert_refused_within_the_bound(answers)

            await recovered(http, games[0].url, games[0].auth)
            after = [await timed_call(http, call) for call in stored_calls(await new_game(http))]
            report = "\n".join(map(str, after))
            # Served: a rule may refuse (409: nothing to undo), the database does not.
            assert all(a.status is not None and a.status < 500 for a in after), report

    asyncio.run(scenario())
