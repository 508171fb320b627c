"""FastAPI dependencies for what the app factory built: settings and the database."""

from __future__ import annotations

from fastapi import Request

from app.persistence.db import Database
from app.settings import Settings


async def get_settings(request: Request) -> Settings:
    """The settings the app was created with (``app.state.settings``)."""
    settings: Settings = request.app.state.settings
    return settings


async def get_db(request: Request) -> Database:
    """The app's database (``app.state.db``): one engine per process."""
    db: Database = request.app.state.db
    return db
