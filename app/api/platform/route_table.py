"""Which of the app's routes serves a request, found without trying every route in turn.

Starlette's router tries each route in the app's order and serves the first that matches
the path and the method (a full match); if none does, the first that matches the path
alone answers 405. The table gives the same answer from an index made once: the routes
whose path is made of literal segments and ``{name}`` parameters (a parameter matches one
non-empty segment) are indexed segment by segment, so a path is looked up by its
segments rather than tried on each pattern; a mount matches the paths under its own.
When the index cannot tell (a route of another kind, a parameter with a convertor, a
root path, a line feed in the path, which Starlette's patterns treat apart: a final
``$`` matches before one) every route is asked in turn by its own ``matches``, as the
router would. ``tests/api/test_route_table.py`` holds
the table to the router's own answer, path for path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import Scope


class Found:
    """The route that serves a request: ``full`` when it takes the method too (else the
    router answers 405 from it), with the values its path parameters take."""

    __slots__ = ("full", "path_params", "route")

    def __init__(self, route: BaseRoute, full: bool, path_params: dict[str, Any]) -> None:
        self.route = route
        self.full = full
        self.path_params = path_params


@dataclass(frozen=True, slots=True)
class _Indexed:
    position: int
    route: Route
    params: tuple[tuple[int, str], ...]  # (segment, name)
    methods: frozenset[str] | None  # None: any method


class _Node:
    """The routes whose paths go on from here, segment by segment."""

    __slots__ = ("entries", "literal", "param")

    def __init__(self) -> None:
        self.literal: dict[str, _Node] = {}
        self.param: _Node | None = None  # one non-empty segment, whatever it is
        self.entries: list[_Indexed] = []  # the routes whose paths end here

    def collect(self, segments: list[str], at: int, into: list[list[_Indexed]]) -> None:
        """Into ``into``: the entries of each node that takes the rest of ``segments``."""
        if at == len(segments):
            if self.entries:
                into.append(self.entries)
            return
        segment = segments[at]
        child = self.literal.get(segment)
        if child is not None:
            child.collect(segments, at + 1, into)
        if self.param is not None and segment:
            self.param.collect(segments, at + 1, into)


class RouteTable:
    """The routes of one app, in its order, indexed. Made again by :meth:`current` when
    the app's routes change (routes may be added after the app is made)."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.size = len(routes)
        self._routes = tuple(routes)
        self._mounts: list[tuple[int, Mount, str]] = []
        self._indexed = True
        self._root = _Node()
        for position, route in enumerate(routes):
            if isinstance(route, Mount) and "{" not in route.path:
                self._mounts.append((position, route, route.path + "/"))
            elif not (isinstance(route, Route) and self._add(position, route)):
                self._indexed = False
        # A path that a route declares with no parameter: its candidates, found once.
        self._exact: dict[str, list[_Indexed]] = {}
        for route in routes:
            path = getattr(route, "path", "")
            if isinstance(route, Route) and "{" not in path:
                self._exact[path] = self._candidates(path.split("/"))

    def _add(self, position: int, route: Route) -> bool:
        """Index ``route``; False when its path is not plain."""
        if not route.path.startswith("/"):
            return False
        node, params = self._root, []
        for at, segment in enumerate(route.path.split("/")):
            if segment.startswith("{") and segment.endswith("}") and ":" not in segment:
                params.append((at, segment[1:-1]))
                if node.param is None:
                    node.param = _Node()
                node = node.param
            elif "{" in segment or "}" in segment:
                return False  # a convertor, or a parameter inside a segment
            else:
                node = node.literal.setdefault(segment, _Node())
        methods = frozenset(route.methods) if route.methods else None
        node.entries.append(_Indexed(position, route, tuple(params), methods))
        return True

    def _candidates(self, segments: list[str]) -> list[_Indexed]:
        """The indexed routes that take a path of ``segments``, in the app's order."""
        ends: list[list[_Indexed]] = []
        self._root.collect(segments, 0, ends)
        if len(ends) == 1:
            # One node's routes (a path's usual case: its methods' routes), already in
            # the app's order: handed over as they are (read, never changed), unsorted.
            return ends[0]
        found = [entry for entries in ends for entry in entries]
        found.sort(key=_position)
        return found

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
        segments: list[str] | None = None
        candidates = self._exact.get(path)
        if candidates is None:
            segments = path.split("/")
            candidates = self._candidates(segments)
        method = scope["method"]
        full: _Indexed | None = None
        for entry in candidates:
            if entry.methods is None or method in entry.methods:
                full = entry
                break
        for position, mount, prefix in self._mounts:
            if full is not None and full.position < position:
                break
            if path.startswith(prefix):
                # A mount takes every method: it comes before any later route.
                return Found(mount, True, {})
        chosen = full or (candidates[0] if candidates else None)
        if chosen is None:
            return None
        if not chosen.params:
            return Found(chosen.route, chosen is full, {})
        if segments is None:
            segments = path.split("/")
        params = {name: segments[at] for at, name in chosen.params}
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


def _position(entry: _Indexed) -> int:
    return entry.position
