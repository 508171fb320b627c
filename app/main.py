"""The app factory. ``app.main:app`` is the ASGI app that ``python -m app`` serves."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from anyio import to_thread
from fastapi import FastAPI

from app import __version__
from app.api.contract import ROUTERS
from app.api.contract.live import LIVE_SUBSCRIBERS, LIVE_SUPERSEDED, sse_frame
from app.api.contract.operations import router as ops_router
from app.api.contract.reference import tile_documents
from app.api.documentation.openapi_document import camel_case_operation_id, install_openapi
from app.api.documentation.pages import install_docs
from app.api.platform.admission import WriteAdmission
from app.api.platform.deprecation import install_deprecations
from app.api.platform.front import FrontConfig, ServiceApp
from app.api.problems import install_problem_handlers
from app.api.web_client import install_table
from app.composition import compose_use_cases
from app.persistence.db import Database, DatabaseTimeouts
from app.services.health import Health
from app.services.live import LiveHub
from app.services.retention import Retention, sweep_periodically
from app.services.tile_packs import load_catalogue
from app.settings import Settings, get_settings

DESCRIPTION = """\
Reference rules service for the **Vatican Report** and the **Excommunication** tiles of
*Lorenzo il Magnifico*: the tiles and the faith track, stateless calculations of reports,
gains, action values, placement order and final scores, and stored games whose reports
it resolves.

Every error is an RFC 9457 `application/problem+json` document whose `type` ends in a
stable slug (see each operation's responses); every response carries `X-Request-ID`.
"""

TAGS = [
    {"name": "reference", "description": "Excommunication tiles, the faith track and tile draws."},
    {"name": "calculations", "description": "Stateless rule calculations: nothing is stored."},
    {"name": "games", "description": "Stored games: players, faith, leaders and turn order."},
    {"name": "reports", "description": "Vatican Reports of a stored game: decisions, resolution."},
    {"name": "seats", "description": "Who holds each seat: new tokens, revoked tokens, recovery."},
    {"name": "operations", "description": "Health, readiness and metrics."},
]

logger = logging.getLogger("app")


def _end_streams_on_signals(hub: LiveHub) -> None:
    """On SIGTERM/SIGINT, end every stream at once, then let the server shut down as it
    would: it waits for open responses, and a stream would otherwise never end. Its
    client reconnects, to another replica, with its Last-Event-ID."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(number)
        if not callable(previous):  # not under a server that handles the signal
            continue

        def handler(signum: int, frame: object, previous: Any = previous) -> None:
            hub.close_threadsafe()
            previous(signum, frame)

        signal.signal(number, handler)


def _loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """``asyncio`` or ``uvloop``: the package whose loop ``loop`` is."""
    return type(loop).__module__.partition(".")[0]


def create_app(settings: Settings | None = None) -> ServiceApp:
    """Build the app. Cheap: the database is connected to lazily, on first use."""
    settings = settings or get_settings()
    db = Database(
        settings.database_url,
        pool_size=settings.db_pool_size,
        timeouts=DatabaseTimeouts(
            pool_ms=settings.db_pool_timeout_ms,
            connect_s=settings.db_connect_timeout_s,
            lock_ms=settings.db_lock_timeout_ms,
            statement_ms=settings.db_statement_timeout_ms,
            hold_ms=settings.db_hold_timeout_ms,
        ),
        sqlite_synchronous=settings.sqlite_synchronous,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Stored-game routes run in the threadpool, each holding a database connection:
        # more threads than connections only queue on the pool and fight over the GIL.
        to_thread.current_default_thread_limiter().total_tokens = settings.threadpool_size
        _end_streams_on_signals(live_hub)
        # Which loop serves is the server's choice (EVENT_LOOP under ``python -m app``).
        logger.info("serving on the %s event loop", _loop_name(asyncio.get_running_loop()))
        sweeper = (
            asyncio.create_task(sweep_periodically(retention, settings.retention_sweep_seconds))
            if settings.retention_sweep_seconds > 0
            else None
        )
        try:
            yield
        finally:
            live_hub.stop()
            if sweeper is not None:
                sweeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeper
            if use_cases.transactions.rows is not None:
                await use_cases.transactions.rows.close()
            app.state.db.dispose()

    app = ServiceApp(
        # Every request goes through the app's front (app/api/platform/front.py): request
        # id, body limit, CORS, HEAD, negotiation, metrics, access log; it serves the
        # explicit routes itself and hands the rest to FastAPI's stack.
        front=FrontConfig.from_settings(settings),
        # The app's own routes are its routers' (FastAPI's include_router would nest each
        # router and walk it twice per request); the operations are tried first.
        routes=[route for router in (ops_router, *ROUTERS) for route in router.routes],
        title="Vatican Report rules service",
        version=__version__,
        license_info={"name": "MIT", "identifier": "MIT"},
        description=DESCRIPTION,
        openapi_tags=TAGS,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        generate_unique_id_function=camel_case_operation_id,
        # The service's telemetry is its own (request ids, the access log, /metrics).
        # FastAPI's native OpenTelemetry, on by default, asks the global providers on every
        # request whether one was configured, at a cost measured in bench/RESULTS.md.
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )
    app.state.settings = settings
    app.state.db = db
    # The tile catalogue is read and validated once, at start-up: a bad tile pack stops
    # the service here with the file and place that is wrong, not on some later request.
    catalogue = app.state.catalogue = load_catalogue(settings.tile_packs_dir)
    app.state.tile_documents = tile_documents(catalogue)
    # The use cases are stateless objects built once; every request shares them.
    use_cases = compose_use_cases(settings, db, catalogue)
    changes = use_cases.changes
    app.state.calculations = use_cases.calculations
    game_service = app.state.game_service = use_cases.games
    # Changes take a request thread only once admitted (app/api/platform/admission.py); SQLite's
    # writers share its one write lock, so they are queued here one at a time, on the loop.
    app.state.write_admission = WriteAdmission(
        slots=1 if db.dialect_name == "sqlite" else settings.write_slots,
        wait_s=settings.db_pool_timeout_ms / 1000,
        check_access=game_service.current_version,
        check_recovery=use_cases.seats.check_recovery,
        # On a SQLite file, an admitted change runs on the event loop, never waiting there.
        on_the_loop=db.on_the_loop,
    )
    app.state.report_service = use_cases.reports
    app.state.history_service = use_cases.history
    app.state.seat_service = use_cases.seats
    app.state.health = Health(db, timeout_s=settings.readyz_timeout_ms / 1000)
    live_hub = app.state.live_hub = LiveHub(
        db,
        changes,
        sse_frame,
        buffer_events=settings.stream_buffer_events,
        buffer_bytes=settings.stream_buffer_bytes,
        max_subscribers=settings.stream_slots,
        max_per_seat=settings.max_streams_per_seat,
        retry_after=settings.retry_after_seconds,
        admission_wait=settings.db_pool_timeout_ms / 1000,
        observe=LIVE_SUBSCRIBERS.set,
        superseded=LIVE_SUPERSEDED.inc,
    )
    retention = app.state.retention = Retention(
        db,
        retention_days=settings.game_retention_days,
        batch_size=settings.retention_batch_size,
        changes=changes,
    )

    install_problem_handlers(app)
    install_deprecations(app)
    # After the API's routes: a request is matched against routes in order, and the docs
    # pages are the rarest.
    install_docs(app)
    install_table(app)
    install_openapi(app)
    return app


app = create_app()
