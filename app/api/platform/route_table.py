"""Which of the app's routes serves a request, found without trying every route in turn.

Starlette's router tries each route in the app's order and serves the first that matches
the path and the method (a full match); if none does, the first that matches the path
alone answers 405. The table gives the same answer from an index made once: the routes
whose path is made of literal segments and ``{name}`` parameters (a parameter matches one
non-empty segment) are indexed by their number of segments and checked segment by
segment; a mount matches the paths under its own. When the index cannot tell (a route of
another kind, a parameter with a convertor, a root path, a path ending in a line feed,
which Starlette's patterns let a final ``$`` match before) every route is asked in turn
by its own ``matches``, as the router would. ``tests/api/test_route_table.py`` holds
the table to the router's own answer, path for path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import Scope


@dataclass(frozen=True, slots=True)
class Found:
    """The route that serves a request: ``full`` when it takes the method too (else the
    router answers 405 from it), with the values its path parameters take."""

    route: BaseRoute
    full: bool
    path_params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Indexed:
    position: int
    route: Route
    literals: tuple[tuple[int, str], ...]  # (segment, text) that must be equal
    params: tuple[tuple[int, str], ...]  # (segment, name) that must not be empty
    methods: frozenset[str] | None  # None: any method


class RouteTable:
    """The routes of one app, in its order, indexed. Made again by :meth:`current` when
    the app's routes change (routes may be added after the app is made)."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.size = len(routes)
        self._routes = tuple(routes)
        self._by_length: dict[int, list[_Indexed]] = {}
        self._mounts: list[tuple[int, Mount, str]] = []
        self._indexed = True
        for position, route in enumerate(routes):
            if isinstance(route, Mount) and "{" not in route.path:
                self._mounts.append((position, route, route.path + "/"))
            elif isinstance(route, Route) and (entry := _index(position, route)) is not None:
                self._by_length.setdefault(len(entry.literals) + len(entry.params) + 1, [])
                self._by_length[len(entry.literals) + len(entry.params) + 1].append(entry)
            else:
                self._indexed = False

    @classmethod
    def current(cls, table: RouteTable | None, routes: Sequence[BaseRoute]) -> RouteTable:
        """``table`` while it still holds ``routes``, else a table made of them."""
        if table is not None and table.size == len(routes):
            return table
        return cls(routes)

    def find(self, scope: Scope) -> Found | None:
        """The route the router would serve ``scope`` with (the method being the
        request's, after a ``HEAD`` became its ``GET``), or None (a 404)."""
        path: str = scope["path"]
        if not self._indexed or scope.get("root_path") or "\n" in path:
            return self._asked_in_turn(scope)
        segments = path.split("/")
        method = scope["method"]
        full: _Indexed | None = None
        partial: _Indexed | None = None
        for entry in self._by_length.get(len(segments), ()):
            if not _fits(entry, segments):
                continue
            if entry.methods is None or method in entry.methods:
                full = entry
                break
            if partial is None:
                partial = entry
        for position, mount, prefix in self._mounts:
            if full is not None and full.position < position:
                break
            if path.startswith(prefix):
                # A mount takes every method: it comes before any later route.
                return Found(mount, True, {})
        chosen = full or partial
        if chosen is None:
            return None
        params = {name: segments[i] for i, name in chosen.params}
        return Found(chosen.route, chosen is full, params)

    def _asked_in_turn(self, scope: Scope) -> Found | None:
        partial: Found | None = None
        for route in self._routes:
            match, child = route.matches(scope)
            if match is Match.FULL:
                return Found(route, True, child.get("path_params", {}))
            if match is Match.PARTIAL and partial is None:
                partial = Found(route, False, child.get("path_params", {}))
        return partial


def _index(position: int, route: Route) -> _Indexed | None:
    """The index entry of ``route``, or None when its path is not plain."""
    literals, params = [], []
    for i, segment in enumerate(route.path.split("/")[1:], start=1):
        if segment.startswith("{") and segment.endswith("}") and ":" not in segment:
            params.append((i, segment[1:-1]))
        elif "{" in segment or "}" in segment:
            return None  # a convertor, or a parameter inside a segment
        else:
            literals.append((i, segment))
    if not route.path.startswith("/"):
        return None
    methods = frozenset(route.methods) if route.methods else None
    return _Indexed(position, route, tuple(literals), tuple(params), methods)


def _fits(entry: _Indexed, segments: list[str]) -> bool:
    for i, text in entry.literals:
        if segments[i] != text:
            return False
    return all(segments[i] for i, _ in entry.params)
