"""The route table finds, for any path and method, the route Starlette's router would
serve (the first that takes the path and the method; else the first that takes the path,
for a 405), with the same path parameters: held to the router's own ``matches``, route
by route in the app's order."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import APIRouter
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.staticfiles import StaticFiles

from app.api.platform.route_table import RouteTable
from app.main import create_app
from app.settings import Settings

SERVICE = create_app(Settings(database_url="sqlite:///:memory:"))
ROUTES: list[BaseRoute] = list(SERVICE.router.routes)
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS")
# Every literal segment the app's paths hold, and a few that none does.
SEGMENTS = sorted(
    {segment for route in ROUTES for segment in getattr(route, "path", "").split("/")}
    | {"", "x", "p1", "0123456789abcdef0123456789abcdef", "%2F", "a b", "é"}
)


def _scope(path: str, method: str, **more: Any) -> dict[str, Any]:
    return {"type": "http", "path": path, "method": method, "root_path": "", **more}


def routers_choice(routes: list[BaseRoute], scope: dict[str, Any]) -> tuple[Any, ...] | None:
    """What Starlette's router serves ``scope`` with: (route, full, path params)."""
    partial = None
    for route in routes:
        match, child = route.matches(scope)
        if match is Match.FULL:
            return (route, True, child.get("path_params", {}))
        if match is Match.PARTIAL and partial is None:
            partial = (route, False, child.get("path_params", {}))
    return partial


def tables_choice(table: RouteTable, scope: dict[str, Any]) -> tuple[Any, ...] | None:
    found = table.find(scope)
    return None if found is None else (found.route, found.full, found.path_params)


def _same(a: tuple[Any, ...] | None, b: tuple[Any, ...] | None) -> bool:
    if a is None or b is None:
        return a is b
    # Routes compare by their declarations: the very same object is what counts.
    return a[0] is b[0] and a[1:] == b[1:]


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(SEGMENTS), min_size=0, max_size=8),
    st.sampled_from(METHODS),
    st.booleans(),
)
def test_the_table_finds_what_the_router_would_serve(
    segments: list[str], method: str, trailing: bool
) -> None:
    path = "/" + "/".join(segments) + ("/" if trailing and segments else "")
    scope = _scope(path, method)
    assert _same(tables_choice(RouteTable(ROUTES), scope), routers_choice(ROUTES, scope)), path


@pytest.mark.parametrize("route", [r for r in ROUTES if isinstance(r, Route)], ids=str)
@pytest.mark.parametrize("method", METHODS)
def test_every_route_of_the_service_is_found_by_its_own_path(route: Route, method: str) -> None:
    path = route.path.replace("{", "v_").replace("}", "")
    scope = _scope(path, method)
    assert _same(tables_choice(RouteTable(ROUTES), scope), routers_choice(ROUTES, scope))


def _endpoint() -> None:
    return None


ORDERED: list[BaseRoute] = [
    Route("/a/{x}", _endpoint, methods=["PUT"]),
    Mount("/a/files", app=StaticFiles(directory=".", check_dir=False)),
    Route("/a/{x}/b", _endpoint, methods=["GET"]),
    Route("/a/files/b", _endpoint, methods=["GET"]),
    Route("/a/literal", _endpoint, methods=["GET"]),
    Route("/a/{x}", _endpoint, methods=["GET"]),
    Route("/", _endpoint, methods=["GET"]),
]


@pytest.mark.parametrize(
    "path", ["/a/literal", "/a/files", "/a/files/b", "/a/files/", "/a/q/b", "/", "/a/q", "/a//b"]
)
@pytest.mark.parametrize("method", ["GET", "PUT", "POST"])
def test_order_mounts_and_partial_matches_are_the_routers(path: str, method: str) -> None:
    scope = _scope(path, method)
    assert _same(tables_choice(RouteTable(ORDERED), scope), routers_choice(ORDERED, scope))


@pytest.mark.parametrize(
    "scope",
    [
        _scope("/healthz\n", "GET"),  # a final $ matches before a line feed
        _scope("/prefix/healthz", "GET", root_path="/prefix"),
        _scope("/v1/games/a\nb", "GET"),
    ],
    ids=["line-feed", "root-path", "inner-line-feed"],
)
def test_what_the_index_cannot_tell_is_asked_of_each_route(scope: dict[str, Any]) -> None:
    assert _same(tables_choice(RouteTable(ROUTES), scope), routers_choice(ROUTES, scope))


def test_a_route_the_index_cannot_read_is_asked_in_turn() -> None:
    router = APIRouter()
    router.add_api_route("/n/{number:int}", _endpoint, methods=["GET"])
    routes = [*router.routes, *ORDERED]
    for path in ("/n/12", "/n/x", "/a/q"):
        scope = _scope(path, "GET")
        assert _same(tables_choice(RouteTable(routes), scope), routers_choice(routes, scope))


def test_the_table_is_made_again_when_routes_are_added() -> None:
    routes: list[BaseRoute] = [Route("/a", _endpoint, methods=["GET"])]
    table = RouteTable(routes)
    assert RouteTable.current(table, routes) is table
    routes.append(Route("/b", _endpoint, methods=["GET"]))
    again = RouteTable.current(table, routes)
    assert again is not table
    assert _same(tables_choice(again, _scope("/b", "GET")), (routes[1], True, {}))
