"""A router that tries a request only on the routes whose literal start it begins with.

FastAPI tries a request on every route of every included router in turn (and the chosen
router's routes twice: once to find it, once to handle), each try a regular-expression
match behind several scope look-ups: a request to the fifth router paid for about twenty
tries, as much as a calculation's validation. Each route's path is literal up to its first
``{`` (``/v1/games/`` for ``/v1/games/{game_id}``), and a route can match (fully, or by
path only, for a 405) only a path that starts with that literal part; so a router none of
whose literal starts begins the path is skipped after a few ``startswith``, and what
matches, in which order, is unchanged.

The routers are included into the app without a prefix of their own (``app/main.py``):
the paths of their routes are the paths the app serves.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.routing import Match
from starlette.types import Scope

from app.api.lean_route import LeanRoute, literal_part


class LeanRouter(APIRouter):
    """An ``APIRouter`` of :class:`LeanRoute` routes (unless told otherwise) that skips a
    request none of its routes could match."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("route_class", LeanRoute)
        super().__init__(**kwargs)
        self._starts: tuple[str, ...] | None = None

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if self._starts is None:  # the routes are all added once the app is built
            paths = (getattr(route, "path", "") for route in self.routes)
            self._starts = tuple({literal_part(path) for path in paths})
        # Behind a root_path the path to match is not scope["path"]: try every route.
        if not scope.get("root_path") and not scope["path"].startswith(self._starts):
            return Match.NONE, {}
        return super().matches(scope)
