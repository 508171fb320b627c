"""The few ASGI steps every ceiling takes: its lifespan, reading a body, sending an answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bench.ceilings.answers import Answer

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


async def lifespan(
    receive: Receive,
    send: Send,
    startup: Callable[[], Awaitable[None]] | None = None,
    shutdown: Callable[[], Awaitable[None]] | None = None,
) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            if startup is not None:
                await startup()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if shutdown is not None:
                await shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return


async def read_body(receive: Receive) -> None:
    """Take the request's body off the connection, as any app that answers it must."""
    while (await receive()).get("more_body", False):
        pass


async def send_answer(
    send: Send, answer: Answer, body: bytes | None = None, replace: list | None = None
) -> None:
    body = answer.body if body is None else body
    await send(answer.start(len(body), replace))
    await send({"type": "http.response.body", "body": body})


def header(scope: dict[str, Any], name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return value
    return None
