"""bare: a plain ASGI function that reads the request's body and answers a fixed JSON body,
as long as the service's answer to the same request (``answers.py``), with its status and
headers. The ceiling of every route that touches no database: ``/healthz``, the faith
track, a tile, the calculations."""

from __future__ import annotations

from typing import Any

from bench.ceilings.answers import NOT_FOUND, READY, find, load
from bench.ceilings.asgi import Receive, Send, lifespan, read_body, send_answer

ANSWERS = load()


async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    await read_body(receive)
    answer = find(ANSWERS, scope["method"], scope["path"])
    if answer is None:
        answer = READY if scope["path"] == "/readyz" else NOT_FOUND
    await send_answer(send, answer)
