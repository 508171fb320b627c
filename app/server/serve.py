"""Serve the app with uvicorn: one process, or a master and its workers."""

from __future__ import annotations

import os
import sys
from typing import Any

from uvicorn import Server

from app.server.config import EdgeConfig
from app.server.edge_limits import EdgeLimits
from app.server.lifecycle import make_metrics_dir, remove_metrics_dir
from app.server.uvicorn_internals import STARTUP_FAILURE, Multiprocess
from app.settings import Settings

APP = "app.main:app"


def serve(
    settings: Settings,
    *,
    host: str,
    port: int,
    workers: int,
    log_config: dict[str, Any],
    target: str = APP,
    **uvicorn_options: Any,
) -> None:
    """What ``uvicorn.run`` does, with :class:`EdgeConfig`; a metrics folder this made for
    its workers is removed when it stops. ``target`` and ``uvicorn_options`` let the
    benchmarks serve a variant of the app exactly the same way."""
    metrics_dir: str | None = None
    if workers > 1 and "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
        # Each worker counts its own requests; prometheus-client's multiprocess mode sums
        # them in /metrics, through files in a folder shared by the workers.
        metrics_dir = make_metrics_dir()
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    config = EdgeConfig(
        target,
        edge_limits=EdgeLimits.from_settings(settings),
        master_pid=os.getpid() if workers > 1 else None,
        metrics_dir=metrics_dir,
        host=host,
        port=port,
        workers=workers,
        log_level=settings.log_level.lower(),
        log_config=log_config,
        # The front (app/api/platform/front.py) writes one JSON access line per request.
        access_log=False,
        # The protocol is always the bounded httptools one, whichever loop runs it.
        loop=settings.event_loop,
        # The client's address is decided in one place, app/api/platform/client_address.py, from
        # the real peer and TRUSTED_PROXIES; uvicorn's own X-Forwarded-For handling (whose
        # default trusts 127.0.0.1) would decide it a second time, differently.
        proxy_headers=False,
        timeout_keep_alive=max(1, round(settings.keepalive_timeout_seconds)),
        timeout_graceful_shutdown=settings.shutdown_timeout_seconds,
        **uvicorn_options,
    )
    try:
        if workers > 1:
            sock = config.bind_socket()
            Multiprocess(config, sockets=[sock]).run()
        else:
            server = Server(config)
            server.run()
            if not server.started:
                sys.exit(STARTUP_FAILURE)
    except KeyboardInterrupt:
        # uvicorn re-raises the SIGINT it handled once it has shut down cleanly; like
        # ``uvicorn.run``, a Ctrl-C'd server exits 0.
        pass
    finally:
        if metrics_dir is not None:
            remove_metrics_dir(metrics_dir)
