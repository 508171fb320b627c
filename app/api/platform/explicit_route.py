"""A route that FastAPI declares and that reads its request explicitly.

Per request, FastAPI's handler solves the route's dependency tree (a cache key, a blank
``Response`` and an exit stack per level), extracts the endpoint's context for error
messages and feeds telemetry hooks, inside a wrapper of two more exit stacks: about as
much as a whole calculation's rules or the SELECT of a game. The service's endpoints need
none of it: their parameters are path, query and header values, one JSON body, the
request, and dependencies that read only those.

An :class:`ExplicitRoute` is an ``APIRoute`` (FastAPI's documented way to customise how a
route handles its requests is a subclass that overrides ``get_route_handler``): FastAPI
reads the endpoint's signature for the contract as for any route, and the handler reads
the request by the same signature (:mod:`app.api.platform.request_values`), with the
answers FastAPI's own handler would give (``tests/api/test_explicit_route.py`` serves
every route of the service both ways). The route serves that handler itself
(``handle``, the routing interface every Starlette route implements), without FastAPI's
per-request wrapper, whose exit stacks serve dependencies with ``yield`` (refused here)
and whose exception handling finds the same handlers as the app's around it.

Such a route is served by the app it is declared for: the app's routes are its
routers' (``FastAPI(routes=...)``, ``app/main.py``); FastAPI's ``include_router``, which
would build its handler again with the including router's dependencies, is refused. The
service's app serves it from its front (:mod:`app.api.platform.front`), which calls
:meth:`ExplicitRoute.respond` once it has found the route, without FastAPI's stack.
An endpoint declared to store (:mod:`app.api.platform.admission`) is called inside its
admission: after its body, its parameters and its dependencies (its token) were read,
before it takes a request thread.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, get_type_hints

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic_core import PydanticUndefined as Undefined
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import Receive, Scope, Send

from app.api.platform.admission import Admitted
from app.api.platform.json_bodies import StrictJSONRequest, check_media_type, read_body
from app.api.platform.request_values import Signature

Handler = Callable[[StrictJSONRequest], Coroutine[Any, Any, Response]]
# What a route answers a path it cannot match (only a full or partial match is read on).
_NO_MATCH: tuple[Match, Scope] = (Match.NONE, {})


def literal_part(path: str) -> str:
    """A route path up to its first parameter (``/v1/games/`` for ``/v1/games/{game_id}``):
    every request path the route matches holds it."""
    return path.split("{")[0]


class ExplicitRoute(APIRoute):
    """An ``APIRoute`` whose endpoint returns a ``Response`` (its ``response_model``
    documents it) and whose request is read explicitly; a sync endpoint runs in the
    threadpool, as FastAPI runs it."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        self._handler: Handler | None = None
        super().__init__(path, endpoint, **kwargs)
        if self.max_body_size is not None:
            raise TypeError(f"{path} ({self.name}): the app bounds bodies, not a route")
        # A request path this route can match holds its literal part: only a root path
        # comes before it. A route without parameters is moreover the path's end.
        self._literal = literal_part(path)
        self._literal_only = self._literal == path

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        where = f"{self.path} ({self.name})"
        if self._handler is not None:  # FastAPI builds it again for an including router
            raise TypeError(
                f"{where}: an ExplicitRoute is served as the app's own route "
                "(FastAPI(routes=router.routes)), not through include_router"
            )
        handler = self._handler = explicit_handler(self.endpoint, self.path, where)

        async def as_fastapi_calls_it(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return as_fastapi_calls_it

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        # The app tries a request on each route in turn: refusing here the paths that
        # cannot match spares the scope look-ups and the pattern.
        path: str = scope["path"]
        if not (path.endswith(self._literal) if self._literal_only else self._literal in path):
            return _NO_MATCH
        return super().matches(scope)

    async def respond(self, request: StrictJSONRequest) -> Response:
        """The answer to ``request``, whose scope this route matched (its path parameters
        in it): what the front serves (``front.py``), and FastAPI's router through
        :meth:`handle`."""
        if self.methods and request.scope["method"] not in self.methods:
            # As Starlette's routes answer it (the app's handler makes it a problem).
            raise HTTPException(405, headers={"Allow": ", ".join(self.methods)})
        assert self._handler is not None
        return await self._handler(request)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await self.respond(StrictJSONRequest(scope, receive, send))
        await response(scope, receive, send)


def explicit_handler(endpoint: Callable[..., Any], path: str, where: str) -> Handler:
    """The handler of ``endpoint`` served at ``path``: its request read by its signature,
    its admission entered when it stores."""
    if not _returns_a_response(endpoint):
        raise TypeError(f"{where}: an ExplicitRoute's endpoint is annotated to return a Response")
    signature = Signature.of(endpoint, path, where)
    dependencies, reads, body_value = signature.dependencies, signature.reads, signature.body
    is_async = inspect.iscoroutinefunction(endpoint)
    admitted = Admitted.of(endpoint, set(signature.parameters), where)

    async def handler(request: StrictJSONRequest) -> Response:
        body: Any = Undefined
        if body_value is not None:
            content_type = request.headers.get("content-type")
            check_media_type(content_type)
            body = await read_body(request, content_type)
        values: dict[str, Any] = {}
        errors: list[Any] = []
        for dependency in dependencies:
            arguments, wrong = dependency.reads.read(request)
            if wrong:
                errors += wrong
                continue
            values[dependency.name] = await dependency.call(**arguments)
        own, wrong = reads.read(request)
        values.update(own)
        errors += wrong
        if body_value is not None:
            value, wrong = body_value.read(body)
            if wrong:
                errors += wrong
            else:
                values[body_value.name] = value
        if errors:
            raise RequestValidationError(errors, body=None if body is Undefined else body)
        if admitted is None:
            response = await _call(endpoint, is_async, values)
        elif is_async:
            async with admitted.enter(request, values):
                response = await endpoint(**values)
        else:
            async with admitted.enter(request, values) as gate:
                response = await gate.call(endpoint, values, admitted.game_changed(values))
        if not isinstance(response, Response):  # its annotation said otherwise
            raise TypeError(f"{where}: an ExplicitRoute's endpoint returns a Response")
        return response

    return handler


async def _call(endpoint: Callable[..., Any], is_async: bool, values: dict[str, Any]) -> Any:
    if is_async:
        return await endpoint(**values)
    return await run_in_threadpool(endpoint, **values)


def _returns_a_response(endpoint: Callable[..., Any]) -> bool:
    """Whether ``endpoint`` says it returns a ``Response``: an ExplicitRoute serialises
    nothing."""
    try:
        returns = get_type_hints(endpoint).get("return")
    except (NameError, TypeError):  # an annotation that names what it cannot see
        return False
    return isinstance(returns, type) and issubclass(returns, Response)
