"""uvicorn's ``Config``, with the edge's limits and protocol, and workers that watch their
master."""

from __future__ import annotations

import gc
import os
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn import Config

from app.server.edge_limits import EdgeLimits
from app.server.lifecycle import (
    die_with_parent,
    remove_metrics_dir,
    remove_metrics_dir_if_orphaned,
)
from app.server.uvicorn_internals import EdgeHttpToolsProtocol


class EdgeConfig(Config):
    """Picklable like uvicorn's (the worker processes get a copy); ``load()`` runs in the
    process that serves, so a worker arms its parent watch there, before serving."""

    def __init__(
        self,
        app: str,
        *,
        edge_limits: EdgeLimits,
        master_pid: int | None = None,
        metrics_dir: str | None = None,
        **kwargs: Any,
    ) -> None:
        # The service speaks no WebSocket: a request that asks to upgrade is served as
        # HTTP/1.1 (EdgeHttpToolsProtocol), never handed to a protocol outside the edge's
        # bounds.
        super().__init__(app, http=EdgeHttpToolsProtocol, ws="none", **kwargs)
        self.edge_limits = edge_limits
        self.master_pid = master_pid
        self.metrics_dir = metrics_dir

    def load(self) -> None:
        worker = self.master_pid is not None and os.getpid() != self.master_pid
        if worker and not self.loaded:
            assert self.master_pid is not None
            if not die_with_parent(self.master_pid):
                # The master died while this worker was starting: serve nothing.
                if self.metrics_dir is not None:
                    remove_metrics_dir(self.metrics_dir)
                os._exit(0)
        super().load()  # once a process: uvicorn refuses a second load
        freeze_the_heap()
        if worker and self.metrics_dir is not None:
            assert self.master_pid is not None
            self.loaded_app = OrphanCleanup(self.loaded_app, self.metrics_dir, self.master_pid)


def freeze_the_heap() -> None:
    """Leave what the app's import made (its modules, routes, schemas, validators: most of
    what a worker holds) out of every later collection of the garbage collector.

    A full collection walks every object it tracks, and it holds the event loop while it
    does: with the app's heap in it, each one held every request of the worker for tens of
    milliseconds (bench/RESULTS.md, seventeenth round). What is frozen is never collected,
    so the garbage made so far is collected first; the app's objects live as long as the
    process anyway."""
    gc.collect()
    gc.freeze()


class OrphanCleanup:
    """Removes the metrics folder when this worker's lifespan ends and its master is gone
    (killed: nobody else will). At the lifespan's end because uvicorn re-raises the
    signal that stopped it, so ``atexit`` handlers never run."""

    def __init__(self, app: ASGIApp, metrics_dir: str, master_pid: int) -> None:
        self.app = app
        self.metrics_dir = metrics_dir
        self.master_pid = master_pid

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def send_then_clean(message: Message) -> None:
            await send(message)
            if message["type"] in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
                remove_metrics_dir_if_orphaned(self.metrics_dir, self.master_pid)

        await self.app(scope, receive, send_then_clean)
