"""``HEAD`` on every route that answers ``GET``: the same status and headers, no body.

FastAPI's routes answer only the methods they declare, so a ``HEAD`` was a 405 although
the CORS preflight advertises it. Rather than a second declaration per route, one layer
serves a ``HEAD`` as the ``GET`` it stands for and sends none of the body: what the
``GET`` would answer (its ``Content-Length`` and ``ETag`` included) is what the
``HEAD`` answers, by construction. A streamed answer (the event stream) ends as soon as
its head is sent: the server then tells the app its client is gone.

Inside the platform middleware, which counts and logs the request as the ``HEAD`` it is.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_HEAD_DONE: Message = {"type": "http.response.body", "body": b"", "more_body": False}


class HeadAsGet:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        inner = {**scope, "method": "GET"}
        answered = False

        async def send_head(message: Message) -> None:
            nonlocal answered
            if message["type"] != "http.response.body":
                await send(message)
            elif not answered:
                # The first part of the body ends the answer; the server, which knows the
                # request is a HEAD (its own scope says so), expects no bytes of it.
                answered = True
                await send(_HEAD_DONE)
            # What the app sends after that goes nowhere, until it hears the disconnect.

        try:
            await self.app(inner, receive, send_head)
        finally:
            # The route the router matched, for the metrics and the access log outside.
            if "route" in inner:
                scope["route"] = inner["route"]
