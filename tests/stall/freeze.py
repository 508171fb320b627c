"""Freezing a private PostgreSQL cluster and timing every stored route against it: shared
by the outage tests of this folder and ``bench/stall.py``.

Freezing is SIGSTOP on the cluster's postmaster and every process it started (the kernel
still accepts and acknowledges; nothing answers; the server enforces none of its own
timeouts). Only ever a PRIVATE cluster (``PrivatePostgres``), never the shared server.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx

from tests.stall.stall_support import Timed, cluster_pids, signal_all
from tests.stall.stored_routes import Call


@contextlib.contextmanager
def frozen(data_dir: Path) -> Iterator[None]:
    """The cluster of ``data_dir`` stopped for the block, resumed (SIGCONT) after it."""
    pids = cluster_pids(data_dir)
    signal_all(pids, signal.SIGSTOP)
    try:
        yield
    finally:
        signal_all(pids, signal.SIGCONT)


async def timed_call(http: httpx.AsyncClient, call: Call) -> Timed:
    """``call``'s answer and how long it took to come; a stream's answer is its status
    line and headers (its body would last for the stream's life)."""
    start = time.monotonic()
    request = http.build_request(call.method, call.url, **call.send_args())
    try:
        response = await http.send(request, stream=True)
    except httpx.TimeoutException:
        return Timed(call.what, None, None, None, time.monotonic() - start)
    try:
        problem = response.headers.get("content-type", "").startswith("application/problem+json")
        body = await response.aread() if problem or call.what != "stream" else b""
    finally:
        await response.aclose()
    seconds = time.monotonic() - start
    slug = detail = None
    if problem:
        document = httpx.Response(200, content=body).json()
        slug = str(document.get("type", "")).rsplit("/", 1)[-1]
        detail = str(document.get("detail", ""))
    return Timed(
        call.what,
        response.status_code,
        slug,
        response.headers.get("retry-after"),
        seconds,
        detail or "",
    )


async def fire(http: httpx.AsyncClient, calls: Sequence[Call]) -> list[Timed]:
    """Every call at once; each answer's own time."""
    return list(await asyncio.gather(*(timed_call(http, call) for call in calls)))


# Every setting that bounds a wait on the database: the outage tests of this folder that
# prove the contract run with none of them set, that is with the settings' defaults.
BOUND_SETTINGS = (
    "DB_POOL_SIZE",
    "DB_POOL_TIMEOUT_MS",
    "DB_CONNECT_TIMEOUT_S",
    "DB_LOCK_TIMEOUT_MS",
    "DB_STATEMENT_TIMEOUT_MS",
    "DB_HOLD_TIMEOUT_MS",
    "READYZ_TIMEOUT_MS",
    "THREADPOOL_SIZE",
    "MAX_CONCURRENT_WRITES",
    "RETRY_AFTER_SECONDS",
)
#: The settings' default Retry-After (RETRY_AFTER_SECONDS).
DEFAULT_RETRY_AFTER = "2"
#: The contract: with the default settings, a stored call on a frozen PostgreSQL answers
#: 503 with Retry-After within this many seconds of being sent (docs/scaling.md).
OUTAGE_BOUND_S = 10.0


async def recovered(http: httpx.AsyncClient, url: str, auth: dict[str, str]) -> float:
    """Seconds until the same process is ready and serves ``url`` again (within 20 s)."""
    start = time.monotonic()
    while True:
        ready = await http.get("/readyz")
        read = await http.get(url, headers=auth)
        if ready.status_code == 200 and read.status_code == 200:
            return time.monotonic() - start
        assert time.monotonic() - start < 20, f"no recovery: {ready.status_code} {read.text}"
        await asyncio.sleep(0.1)


def assert_refused_within_the_bound(answers: Sequence[Timed]) -> None:
    """Each answer is a 503 ``service-unavailable`` with the default Retry-After, sent
    within ``OUTAGE_BOUND_S``."""
    report = "\n".join(map(str, answers))
    for answer in answers:
        assert answer.status == 503 and answer.slug == "service-unavailable", report
        assert answer.retry_after == DEFAULT_RETRY_AFTER, report
        assert answer.seconds < OUTAGE_BOUND_S, report
