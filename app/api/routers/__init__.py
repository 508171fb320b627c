"""The public routers, in the order they appear in the docs."""

from fastapi import APIRouter

from app.api.routers import calculations, games, reference, reports

ROUTERS: list[APIRouter] = [reference.router, calculations.router, games.router, reports.router]
