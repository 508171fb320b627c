"""bare-read: one indexed ``SELECT`` of a game's row by ``id`` (``database.py``), answered
as the service answers ``GET /v1/games/{id}``: the stored document as the body, the
version as the ``ETag``, the other headers of the service's answer (``answers.py``).

With ``If-None-Match``, the ``SELECT`` reads the version only and a match answers 304
with the ``ETag`` and the headers of the service's 304, as the service's conditional GET
does. No token is checked: the request carries the same ``Authorization`` header, unread.
"""

from __future__ import annotations

import os
from typing import Any

from bench.ceilings.answers import NOT_FOUND, READY, find, load
from bench.ceilings.asgi import Receive, Send, header, lifespan, read_body, send_answer
from bench.ceilings.database import game_id, game_rows

ANSWERS = load()
ROWS = game_rows(os.environ["DATABASE_URL"])


async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await lifespan(receive, send, ROWS.open, ROWS.close)
        return
    await read_body(receive)
    method, path = scope["method"], scope["path"]
    wanted = header(scope, b"if-none-match")
    if wanted is not None and (answer := find(ANSWERS, method, path, 304)) is not None:
        version = await ROWS.version(game_id(path))
        etag = b'"%d"' % version if version is not None else None
        if etag == wanted:
            await send_answer(send, answer, replace=[(b"etag", etag)])
            return
    answer = find(ANSWERS, method, path, 200)
    if answer is None:
        await send_answer(send, READY if path == "/readyz" else NOT_FOUND)
        return
    row = await ROWS.document(game_id(path))
    if row is None:
        await send_answer(send, NOT_FOUND)
        return
    version, document = row
    etag = b'"%d"' % version
    await send_answer(send, answer, document.encode(), replace=[(b"etag", etag)])
