"""uvicorn's ``Config``, with the edge's limits and protocol, and workers that watch their
master."""

from __future__ import annotations

import os
from typing import Any

from uvicorn import Config

from app.server.lifecycle import die_with_parent, register_orphan_cleanup
from app.server.limits import EdgeLimits
from app.server.protocol import EdgeHttpToolsProtocol


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
        super().__init__(app, http=EdgeHttpToolsProtocol, **kwargs)
        self.edge_limits = edge_limits
        self.master_pid = master_pid
        self.metrics_dir = metrics_dir

    def load(self) -> None:
        if self.master_pid is not None and os.getpid() != self.master_pid and not self.loaded:
            if self.metrics_dir is not None:
                register_orphan_cleanup(self.metrics_dir, self.master_pid)
            die_with_parent(self.master_pid)
        super().load()
