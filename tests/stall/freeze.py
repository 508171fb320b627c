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
