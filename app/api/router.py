"""Routers of lean routes, and how the app serves them.

``include_lean`` makes a router's routes the app's own: the app tries each of them once
per request, and a LeanRoute refuses a path without its literal part in a few
instructions. FastAPI's ``include_router`` instead walks an included router's routes
twice per request (once to find the router, once to handle the request), saving and
restoring scope entries around every try: for a request to the fifth route of the
fourth router, with FastAPI's per-route wrapper, 8.9% of the instructions of a whole
final-scores request (bench/RESULTS.md). The service's routers are served so
(``app/main.py``); the operations router, of plain ``APIRoute``s, is included by FastAPI.

A ``LeanRouter`` that FastAPI includes (the operations router, tried before every other
route) skips a request none of its routes could match. Each route's path is literal up to
its first ``{`` (``/v1/games/`` for ``/v1/games/{game_id}``), and a route can match (fully,
or by path only, for a 405) only a path that starts with that literal part; so a router
none of whose literal starts begins the path is skipped after a few ``startswith``, and
what matches, in which order, is unchanged. Such a router is included without a prefix of
its own: the paths of its routes are the paths the app serves.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI
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


def include_lean(app: FastAPI, router: APIRouter) -> None:
    """Serve ``router``'s :class:`LeanRoute` routes as ``app``'s own, at their paths
    (the router's prefix is in them; no other prefix, dependency or response is added)."""
    for route in router.routes:
        if not isinstance(route, LeanRoute):
            raise TypeError(f"{getattr(route, 'path', route)}: include_lean takes LeanRoutes")
        app.router.routes.append(route.served_by(app))
