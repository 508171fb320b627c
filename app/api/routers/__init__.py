"""The public routers, in the order they appear in the docs."""

from fastapi import APIRouter

ROUTERS: list[APIRouter] = []
