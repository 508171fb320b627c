"""A route that hands its parameters to the endpoint without FastAPI's request handler.

Per request, FastAPI's handler solves the route's dependency tree recursively (a cache
key, a blank ``Response`` and an exit stack per level), extracts the endpoint's context
for error messages and feeds telemetry hooks: about 40 us, as much as a whole
calculation's rules or the SELECT of a game. The endpoints here need none of that: their
parameters are path, query and header values, one JSON body, the request, and
dependencies that read only those. :class:`LeanRoute` reads them with FastAPI's own
functions (``request_params_to_args``, ``request_body_to_args``) in FastAPI's order, so
the values and the errors, down to a 422's list, are the ones FastAPI would give
(``tests/api/test_lean_route.py`` runs the same endpoints behind both). A ``str`` path
parameter and a ``str | None`` header under an explicit alias, which FastAPI would hand
over unchanged, are read directly. The OpenAPI document is unchanged: FastAPI still reads
the endpoint's signature for it.

What such a route cannot take is refused when the app is built (``TypeError``), and an
app with ``dependency_overrides`` set gets FastAPI's own handler back (without the
admission below: overrides are for tests).

An endpoint declared to store (``app/api/admission.py``) is called inside its admission:
after its body, its parameters and its dependencies (its token) were read, before it
takes a request thread.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_type_hints

import fastapi.routing
from fastapi import FastAPI, Request, Response, params
from fastapi.concurrency import run_in_threadpool
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import request_body_to_args, request_params_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute, request_response
from pydantic_core import PydanticUndefined as Undefined
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.platform.admission import Admitted
from app.api.platform.json_bodies import (
    StrictJSONRequest,
    StrictJSONRoute,
    check_media_type,
    read_body,
)

if TYPE_CHECKING:
    from fastapi._compat import ModelField

Handler = Callable[[Request], Coroutine[Any, Any, Response]]
LeanHandler = Callable[[StrictJSONRequest], Coroutine[Any, Any, Response]]


@dataclass(frozen=True)
class _Reads:
    """What one callable (a dependency or the endpoint) takes from a request."""

    dependant: Dependant
    # Parameters read as the request has them (see _as_found): (name, key) pairs.
    path_as_found: tuple[tuple[str, str], ...]
    headers_as_found: tuple[tuple[str, str], ...]
    # The others, read by FastAPI's request_params_to_args.
    path_params: list[ModelField]
    header_params: list[ModelField]

    @classmethod
    def of(cls, dependant: Dependant, where: str) -> _Reads:
        unsupported = {
            "cookie parameters": dependant.cookie_params,
            "a websocket": dependant.websocket_param_name,
            "a response parameter": dependant.response_param_name,
            "background tasks": dependant.background_tasks_param_name,
            "security scopes": dependant.security_scopes_param_name,
            "a concurrency limit": dependant.concurrency,
        }
        taken = [what for what, value in unsupported.items() if value]
        if taken:
            raise TypeError(f"{where}: a LeanRoute takes no {', '.join(taken)}")
        path_found, path_params = _split(dependant.path_params)
        headers_found, header_params = _split(dependant.header_params)
        return cls(dependant, path_found, headers_found, path_params, header_params)

    def values(self, request: Request) -> tuple[dict[str, Any], list[Any]]:
        """Its path, query and header values and the request, with their errors."""
        dependant = self.dependant
        values: dict[str, Any] = {}
        errors: list[Any] = []
        if self.path_as_found:
            path = request.path_params
            for name, key in self.path_as_found:
                values[name] = path[key]
        if self.headers_as_found:
            headers = request.headers
            for name, key in self.headers_as_found:
                values[name] = headers.get(key)
        # Each source is read only when asked for: request.query_params parses the query.
        if self.path_params:
            errors += _read(values, self.path_params, request.path_params)
        if dependant.query_params:
            errors += _read(values, dependant.query_params, request.query_params)
        if self.header_params:
            errors += _read(values, self.header_params, request.headers)
        for takes_request in (dependant.http_connection_param_name, dependant.request_param_name):
            if takes_request:
                values[takes_request] = request
        return values, errors


def _split(fields: list[ModelField]) -> tuple[tuple[tuple[str, str], ...], list[ModelField]]:
    """The parameters read as found, as (name, key) pairs, and the others."""
    found, others = [], []
    for field in fields:
        key = _as_found(field)
        if key is None:
            others.append(field)
        else:
            found.append((field.name, key))
    return tuple(found), others


def _as_found(field: ModelField) -> str | None:
    """The key of a parameter FastAPI hands over exactly as the request has it, if it is
    one: a path parameter declared ``str``, or a header declared ``str | None = None``
    under an explicit alias, with no constraint. Read directly, it costs a dictionary
    look-up instead of FastAPI's alias resolution and a validation that cannot fail."""
    info = field.field_info
    if info.metadata or info.validation_alias not in (None, info.alias):
        return None
    if isinstance(info, params.Path) and info.annotation is str:
        return field.alias
    if (
        isinstance(info, params.Header)
        and info.alias
        and info.annotation == (str | None)
        and info.default is None
    ):
        return info.alias
    return None


def _read(values: dict[str, Any], params: list[Any], source: Any) -> list[Any]:
    """Add the values of ``params`` found in ``source`` to ``values``; their errors."""
    found, errors = request_params_to_args(params, source)
    values.update(found)
    return errors


@dataclass(frozen=True)
class _Dependency:
    """A dependency read from the request alone: async, not nested, not a generator."""

    name: str
    call: Callable[..., Coroutine[Any, Any, Any]]
    reads: _Reads

    @classmethod
    def of(cls, dependant: Dependant, where: str) -> _Dependency:
        call = dependant.call
        if (
            dependant.name is None
            or call is None
            or dependant.dependencies
            or dependant.body_params
            or not _is_coroutine_function(call)
        ):
            raise TypeError(
                f"{where}: a LeanRoute's dependencies must be async functions of the "
                "request and its parameters, not generators, not nested"
            )
        return cls(dependant.name, call, _Reads.of(dependant, where))


def _returns_a_response(endpoint: Callable[..., Any]) -> bool:
    """Whether ``endpoint`` says it returns a ``Response``: a LeanRoute serialises nothing."""
    try:
        returns = get_type_hints(endpoint).get("return")
    except (NameError, TypeError):  # an annotation that names what it cannot see
        return False
    return isinstance(returns, type) and issubclass(returns, Response)


def _is_coroutine_function(call: Callable[..., Any]) -> bool:
    dunder_call = getattr(call, "__call__", None)  # noqa: B004 (an instance's method)
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(dunder_call)


def literal_part(path: str) -> str:
    """A route path up to its first parameter (``/v1/games/`` for ``/v1/games/{game_id}``):
    every request path the route matches holds it."""
    return path.split("{")[0]


def _as_included(route: APIRoute) -> Any:
    """The route as its app includes it (the including routers' prefixes, dependencies
    and overrides): FastAPI builds an included route's handler again with that context in
    a variable of its own, which its own ``get_route_handler`` reads the same way."""
    context_var = getattr(fastapi.routing, "_effective_route_context_var", None)
    context = context_var.get() if context_var is not None else None
    return context if context is not None and context.original_route is route else route


class LeanRoute(StrictJSONRoute):
    """A :class:`StrictJSONRoute` whose parameters are read without FastAPI's handler.

    The endpoint returns a ``Response`` (its ``response_model`` documents it); a sync
    endpoint runs in the threadpool, as FastAPI runs it.
    """

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        # A request path this route can match contains its literal part: only a prefix of
        # an including router or a root path comes before it. A route without parameters
        # is moreover the path's end.
        self._literal = literal_part(path)
        self._literal_only = self._literal == path

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        # FastAPI tries a request on each route of the router in turn, twice: refusing here
        # the paths that cannot match spares its scope look-ups and the pattern (2.3% of
        # a request to the fifth route of its router, bench/RESULTS.md).
        path: str = scope.get("path", "")
        if not (path.endswith(self._literal) if self._literal_only else self._literal in path):
            return Match.NONE, {}
        return super().matches(scope)

    def served_by(self, app: FastAPI) -> LeanRoute:
        """This route as one of ``app``'s own routes (``app.api.router.include_lean``).

        The copy answers through its handler alone, without the wrapper FastAPI puts
        around every route's handler: two exit stacks, for dependencies with ``yield``
        (which a LeanRoute refuses), and an exception handler that finds the same
        handlers as the app's ExceptionMiddleware around it. While the app has dependency
        overrides, FastAPI's handler, wrapper and all, answers instead, as it would have.
        """
        if self.max_body_size is not None:
            raise TypeError(f"{self.path} ({self.name}): the app bounds bodies, not a route")
        route = copy.copy(self)
        route.dependency_overrides_provider = app
        fallback = request_response(route._fastapi_handler())
        route.app = _lean_app(route._lean_handler(), fallback, app)
        return route

    def get_route_handler(self) -> Handler:
        """The handler FastAPI wraps when it includes this route's router: the lean one,
        or FastAPI's own while the including app has dependency overrides."""
        fastapi_handler = self._fastapi_handler()
        lean_handler = self._lean_handler()
        overrides = _as_included(self).dependency_overrides_provider

        async def handler(request: Request) -> Response:
            if overrides is not None and getattr(overrides, "dependency_overrides", None):
                return await fastapi_handler(request)
            return await lean_handler(StrictJSONRequest(request.scope, request.receive))

        return handler

    def _fastapi_handler(self) -> Handler:
        """FastAPI's own handler for this route (as a StrictJSONRoute)."""
        return super().get_route_handler()

    def _lean_handler(self) -> LeanHandler:
        route = _as_included(self)
        dependant, where = route.dependant, f"{route.path} ({self.name})"
        endpoint = dependant.call
        if endpoint is None:
            raise TypeError(f"{where}: no endpoint")
        if not _returns_a_response(endpoint):
            raise TypeError(f"{where}: a LeanRoute's endpoint is annotated to return a Response")
        reads = _Reads.of(dependant, where)
        names = [d.call for d in dependant.dependencies]
        if len(set(names)) != len(names):
            raise TypeError(f"{where}: a LeanRoute calls each dependency once")
        dependencies = [_Dependency.of(d, where) for d in dependant.dependencies]
        body_params, embed = dependant.body_params, route._embed_body_fields
        if len(body_params) > 1 or embed:
            raise TypeError(f"{where}: a LeanRoute takes one JSON body, not embedded")
        body_field = body_params[0] if body_params else None
        is_async = inspect.iscoroutinefunction(endpoint)
        admitted = Admitted.of(endpoint, set(inspect.signature(endpoint).parameters), where)

        async def lean_handler(strict: StrictJSONRequest) -> Response:
            body: Any = Undefined
            if body_field is not None:
                check_media_type(strict.headers.get("content-type"))
                body = await read_body(strict)
            # FastAPI's order: each dependency (skipped when its own values are wrong),
            # then the endpoint's path, query and header values, then the body.
            values: dict[str, Any] = {}
            errors: list[Any] = []
            for dependency in dependencies:
                arguments, wrong = dependency.reads.values(strict)
                if wrong:
                    errors += wrong
                    continue
                values[dependency.name] = await dependency.call(**arguments)
            own, wrong = reads.values(strict)
            values.update(own)
            errors += wrong
            if body_field is not None and body is not Undefined:
                # What request_body_to_args does for one body that is not embedded,
                # without working that out again on every request.
                values[body_field.name], wrong = body_field.validate(body, {}, loc=("body",))
                errors += wrong
            elif body_field is not None:
                found, wrong = await request_body_to_args(body_params, body, False)
                values.update(found)
                errors += wrong
            if errors:
                raise RequestValidationError(errors, body=None if body is Undefined else body)
            if admitted is None:
                response = await _call(endpoint, is_async, values)
            else:
                async with admitted.enter(strict, values):
                    response = await _call(endpoint, is_async, values)
            if not isinstance(response, Response):  # its annotation said otherwise
                raise TypeError(f"{where}: a LeanRoute's endpoint returns a Response")
            return response

        return lean_handler


async def _call(endpoint: Callable[..., Any], is_async: bool, values: dict[str, Any]) -> Any:
    if is_async:
        return await endpoint(**values)
    return await run_in_threadpool(endpoint, **values)


def _lean_app(handler: LeanHandler, fallback: ASGIApp, app: FastAPI) -> ASGIApp:
    """The ASGI app of a route served by ``app`` (see :meth:`LeanRoute.served_by`):
    ``fallback`` answers while the app has dependency overrides."""

    async def lean_app(scope: Scope, receive: Receive, send: Send) -> None:
        if app.dependency_overrides:
            await fallback(scope, receive, send)
            return
        response = await handler(StrictJSONRequest(scope, receive, send))
        await response(scope, receive, send)

    return lean_app
