"""FastAPI dependencies on what the app factory built once (all on ``app.state``): the
tile catalogue, the use-case objects and the health check."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from fastapi import Depends, Request

from app.domain.tiles import Catalogue
from app.services.calculations import Calculations
from app.services.games import GameService
from app.services.health import Health
from app.services.history import HistoryService
from app.services.live import LiveHub
from app.services.reports import ReportService
from app.services.seats import SeatService


async def get_health(request: Request) -> Health:
    health: Health = request.app.state.health
    return health


async def get_catalogue(request: Request) -> Catalogue:
    """The tile catalogue the app loaded at start-up (base tiles plus configured packs)."""
    catalogue: Catalogue = request.app.state.catalogue
    return catalogue


def tile_documents_of(request: Request) -> Mapping[str, bytes]:
    """Not a dependency: each tile's answer, serialised when the app was made (a
    dependency's call would cost more than the tile it serves)."""
    documents: Mapping[str, bytes] = request.app.state.tile_documents
    return documents


def calculations_of(request: Request) -> Calculations:
    """Not a dependency: the calculation routes take none (see ``ExplicitRoute``)."""
    calculations: Calculations = request.app.state.calculations
    return calculations


async def get_game_service(request: Request) -> GameService:
    service: GameService = request.app.state.game_service
    return service


async def get_report_service(request: Request) -> ReportService:
    service: ReportService = request.app.state.report_service
    return service


async def get_history_service(request: Request) -> HistoryService:
    service: HistoryService = request.app.state.history_service
    return service


async def get_seat_service(request: Request) -> SeatService:
    service: SeatService = request.app.state.seat_service
    return service


ServiceHealth = Annotated[Health, Depends(get_health)]
TileCatalogue = Annotated[Catalogue, Depends(get_catalogue)]
GameUseCases = Annotated[GameService, Depends(get_game_service)]
ReportUseCases = Annotated[ReportService, Depends(get_report_service)]
HistoryUseCases = Annotated[HistoryService, Depends(get_history_service)]
SeatUseCases = Annotated[SeatService, Depends(get_seat_service)]


async def get_live_hub(request: Request) -> LiveHub:
    hub: LiveHub = request.app.state.live_hub
    return hub


LiveGames = Annotated[LiveHub, Depends(get_live_hub)]
