"""``python -m app``: apply the migrations, then serve ``app.main:app`` with uvicorn
(bounded at the edge by :mod:`app.server`)."""

from __future__ import annotations

import argparse
import copy
import multiprocessing
import sys
from collections.abc import Sequence
from typing import Any

import uvicorn
from sqlalchemy.engine import make_url

from app.server.serve import serve
from app.settings import get_settings


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    settings = get_settings()
    parser = argparse.ArgumentParser(
        prog="python -m app",
        description="Apply the database migrations, then serve the Vatican Report rules service.",
    )
    parser.add_argument("--host", default=settings.host, help=f"default {settings.host}")
    parser.add_argument("--port", type=int, default=settings.port, help=f"default {settings.port}")
    parser.add_argument(
        "--workers", type=int, default=settings.workers, help=f"default {settings.workers}"
    )
    parser.add_argument(
        "--no-migrate", action="store_true", help="serve without applying migrations first"
    )
    return parser.parse_args(argv)


def redact_url(url: str) -> str:
    """``url`` with any password hidden, for printing."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy can parse: show nothing of it
        return "<unparseable database URL>"


def log_config(level: str) -> dict[str, Any]:
    """uvicorn's logging, plus the service's loggers: ``app.access`` as bare JSON lines."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config["handlers"]["app_access"] = {
        "class": "app.api.platform.request_log.AccessLineHandler",
        "stream": "ext://sys.stdout",
    }
    config["loggers"]["app"] = {"handlers": ["default"], "level": level, "propagate": False}
    config["loggers"]["app.access"] = {
        "handlers": ["app_access"],
        "level": level,
        "propagate": False,
    }
    return config


def migrate(url: str) -> None:
    """Apply the migrations in a child process, then go on. Alembic and what it loads
    (about 12 MiB) stay out of the server: with one worker, this very process serves."""
    child = multiprocessing.get_context("fork").Process(
        target=_upgrade, args=(url,), name="migrate"
    )
    child.start()
    child.join()
    if child.exitcode != 0:  # the child wrote its traceback
        sys.exit(f"the migrations failed (exit code {child.exitcode})")


def _upgrade(url: str) -> None:
    from app.persistence.migrate import upgrade

    upgrade(url)


def main(argv: Sequence[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["purge"]:
        from app.cli import purge

        raise SystemExit(purge(argv[1:]))
    args = _parse_args(argv)
    settings = get_settings()
    if not args.no_migrate:
        migrate(settings.database_url)
    print(
        f"Vatican Report rules service on http://{args.host}:{args.port} "
        f"({args.workers} worker{'s' if args.workers != 1 else ''} "
        f"on the {settings.event_loop} event loop), "
        f"database {redact_url(settings.database_url)}",
        flush=True,
    )
    serve(
        settings,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_config=log_config(settings.log_level.upper()),
    )


if __name__ == "__main__":
    main()
