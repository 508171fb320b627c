"""FastAPI dependencies for what the app factory built once: the database, the
tile catalogue and the use-case objects (all on ``app.state``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.domain.tiles import Catalogue
from app.persistence.db import Database
from app.services.games import GameService
from app.services.idempotency import Idempotency
from app.services.reports import ReportService


async def get_db(request: Request) -> Database:
    """The app's database (``app.state.db``): one engine per process."""
    db: Database = request.app.state.db
    return db


async def get_catalogue(request: Request) -> Catalogue:
    """The tile catalogue the app loaded at start-up (base tiles plus configured packs)."""
    catalogue: Catalogue = request.app.state.catalogue
    return catalogue


async def get_game_service(request: Request) -> GameService:
    service: GameService = request.app.state.game_service
    return service


async def get_report_service(request: Request) -> ReportService:
    service: ReportService = request.app.state.report_service
    return service


async def get_idempotency(request: Request) -> Idempotency:
    idempotency: Idempotency = request.app.state.idempotency
    return idempotency


Games = Annotated[GameService, Depends(get_game_service)]
Reports = Annotated[ReportService, Depends(get_report_service)]
Tiles = Annotated[Catalogue, Depends(get_catalogue)]
Replays = Annotated[Idempotency, Depends(get_idempotency)]
