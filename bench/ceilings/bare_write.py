"""bare-write: reads the request's body, runs one ``UPDATE`` of the game's row by ``id``,
committed (``database.py``: its ``updated_at``, which every change of the service sets
too), and answers as the service answered the same request (``answers.py``): status,
headers, a JSON body of the same length. The ceiling of every change to a stored game."""

from __future__ import annotations

import os
from typing import Any

from bench.ceilings.answers import NOT_FOUND, READY, find, load
from bench.ceilings.asgi import Receive, Send, lifespan, read_body, send_answer
from bench.ceilings.database import game_id, game_rows

ANSWERS = load()
ROWS = game_rows(os.environ["DATABASE_URL"])


async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await lifespan(receive, send, ROWS.open, ROWS.close)
        return
    await read_body(receive)
    answer = find(ANSWERS, scope["method"], scope["path"])
    if answer is None:
        await send_answer(send, READY if scope["path"] == "/readyz" else NOT_FOUND)
        return
    await ROWS.touch(game_id(scope["path"]))
    await send_answer(send, answer)
