"""FastAPI's own request handler, as the reference an ExplicitRoute answers like.

The service reads JSON bodies strictly (415 for another media type; UTF-8; no repeated
key: ``app/api/platform/json_bodies.py``), which FastAPI's handler does not: this route
class gives FastAPI's handler the same strict request and media type check, and is
otherwise FastAPI's."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from app.api.platform.json_bodies import StrictJSONRequest, check_media_type


class FastAPIsOwnRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        takes_body = self.body_field is not None

        async def strict_handler(request: Request) -> Response:
            if takes_body:
                check_media_type(request.headers.get("content-type"))
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict_handler
