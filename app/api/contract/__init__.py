"""The public routers, in the order they appear in the docs."""

from fastapi import APIRouter

from app.api.contract import (
    calculations,
    game_calculations,
    games,
    history,
    live,
    reference,
    reports,
    seats,
)

ROUTERS: list[APIRouter] = [
    reference.router,
    calculations.router,
    games.router,
    game_calculations.router,
    live.router,
    reports.router,
    history.router,
    seats.router,
]
