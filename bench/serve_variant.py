"""Serve a variant of the app for an A/B experiment, exactly as ``python -m app`` serves
(same uvicorn options and logging), with migrations applied first.

    DATABASE_URL=... python -m bench.serve_variant PORT WORKERS VARIANT

VARIANT: ``baseline`` (exactly ``python -m app``: app.server.serve, the bounded httptools
protocol), ``plain-httptools`` (uvicorn's own httptools protocol, no edge limits, on the
service's ``EVENT_LOOP``: what the edge costs), ``asyncio-h11`` (app.main:app on the
asyncio loop and h11).
"""

from __future__ import annotations

import argparse
from typing import Any

import uvicorn

from app.__main__ import log_config
from app.persistence.migrate import upgrade
from app.server.serve import serve
from app.settings import Settings, get_settings

# Each variant's app, event loop (None: the service's EVENT_LOOP) and protocol.
VARIANTS: dict[str, tuple[str, str | None, str]] = {
    "plain-httptools": ("app.main:app", None, "httptools"),
    "asyncio-h11": ("app.main:app", "asyncio", "h11"),
}


def serve_variant(
    settings: Settings, port: int, workers: int, variant: str, **uvicorn_options: Any
) -> None:
    """Serve ``variant`` on 127.0.0.1:``port`` as ``python -m app`` would, its log
    configured as there; ``uvicorn_options`` add to (or override) a variant's options."""
    config = log_config(settings.log_level.upper())
    if variant == "baseline":
        serve(
            settings,
            host="127.0.0.1",
            port=port,
            workers=workers,
            log_config=config,
            **uvicorn_options,
        )
        return
    target, loop, http = VARIANTS[variant]
    options: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": port,
        "workers": workers,
        "log_level": settings.log_level.lower(),
        "log_config": config,
        "access_log": False,
        "loop": loop or settings.event_loop,
        "http": http,
    }
    uvicorn.run(target, **{**options, **uvicorn_options})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("port", type=int)
    parser.add_argument("workers", type=int)
    parser.add_argument("variant", choices=["baseline", *VARIANTS])
    args = parser.parse_args()
    settings = get_settings()
    upgrade(settings.database_url)
    serve_variant(settings, args.port, args.workers, args.variant)


if __name__ == "__main__":
    main()
