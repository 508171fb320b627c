"""Serve a variant of the app for an A/B experiment, exactly as ``python -m app`` serves
(same uvicorn options and logging), with migrations applied first.

    DATABASE_URL=... python bench/serve_variant.py PORT WORKERS VARIANT

VARIANT: ``baseline`` (exactly ``python -m app``: app.server.serve, the bounded httptools
protocol), ``plain-httptools`` (uvicorn's own httptools protocol, no edge limits: what the
edge costs), ``asyncio-h11`` (app.main:app on the asyncio loop and h11).
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from app.__main__ import log_config  # noqa: E402
from app.persistence.migrate import upgrade  # noqa: E402
from app.server.serve import serve  # noqa: E402
from app.settings import get_settings  # noqa: E402

VARIANTS = {
    "plain-httptools": ("app.main:app", "auto", "httptools"),
    "asyncio-h11": ("app.main:app", "asyncio", "h11"),
}


def main() -> None:
    port, workers, variant = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    settings = get_settings()
    upgrade(settings.database_url)
    config = log_config(settings.log_level.upper())
    if variant == "baseline":
        serve(settings, host="127.0.0.1", port=port, workers=workers, log_config=config)
        return
    target, loop, http = VARIANTS[variant]
    uvicorn.run(
        target,
        app_dir=str(REPO),
        host="127.0.0.1",
        port=port,
        workers=workers,
        log_level=settings.log_level.lower(),
        log_config=config,
        access_log=False,
        loop=loop,
        http=http,
    )


if __name__ == "__main__":
    main()
