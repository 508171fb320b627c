"""JSON bodies read strictly.

FastAPI reads a body with ``json.loads``, which guesses UTF-16 and UTF-32 from the bytes
and lets the last of two equal keys win; and a body of another media type reaches the
model as raw bytes (a confusing 422). Here a body must be ``application/json`` (or
``+json``; a request without ``Content-Type`` is read as JSON) else 415, UTF-8 else 422, and
an object may not repeat a key (422 naming it).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from email.message import Message
from typing import Any

import jiter
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic_core import PydanticUndefined as Undefined
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from app.api.problems.catalogue import UnsupportedMediaType


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


# Read once: json.loads(text, object_pairs_hook=...) builds a new decoder per call.
_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def _is_json(content_type: str) -> bool:
    if content_type == "application/json":  # what nearly every client sends: no parsing
        return True
    message = Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


class StrictJSONRequest(Request):
    """A request whose JSON body must be UTF-8 and repeat no key in any object.

    Its errors are ``JSONDecodeError`` so that FastAPI answers them as every other JSON
    error: a 422 ``validation-error`` at ``body`` saying what is wrong.

    Its body is read from ``receive`` in a plain loop: Starlette's ``body()`` drains its
    ``stream()``, an asynchronous generator, which costs a small body more than the loop
    does (bench/RESULTS.md, seventeenth round). ``stream()`` yields what ``body()`` read,
    so a reader of either sees the same bytes.
    """

    _whole_body: bytes | None = None

    async def body(self) -> bytes:
        if self._whole_body is None:
            chunks: list[bytes] = []
            while True:
                message = await self.receive()
                if message["type"] == "http.disconnect":
                    raise ClientDisconnect()
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    break
            self._whole_body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        return self._whole_body

    async def stream(self) -> AsyncGenerator[bytes, None]:
        # The whole body at once (the front bounds it): one way of reading it, not two.
        yield await self.body()
        yield b""

    async def json(self) -> Any:
        if not hasattr(self, "_strict_json"):
            self._strict_json = strict_loads(await self.body())
        return self._strict_json


def strict_loads(body: bytes) -> Any:
    """The JSON value of ``body``: UTF-8, no repeated key, else a ``JSONDecodeError``.

    jiter (pydantic's JSON parser) reads a well-formed body in about half the time of the
    standard library and refuses everything the reading below refuses (and a few more: a
    lone surrogate escape, nesting past 200 levels). Whatever it refuses is read again
    below, so every answer, value or error, is the standard library's. Its cache of short
    strings is bounded (some 16,000 entries of at most 64 characters).
    """
    try:
        return jiter.from_json(body, catch_duplicate_keys=True)
    except ValueError:
        return _reference_loads(body)


def _reference_loads(body: bytes) -> Any:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise json.JSONDecodeError("the body is not UTF-8 text", "", exc.start) from None
    if text.startswith("\ufeff"):  # as json.loads says, which _DECODER would not
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        return _DECODER.decode(text)
    except _DuplicateKey as exc:
        raise json.JSONDecodeError(
            f"the key {exc.args[0]!r} appears twice in one object", text, 0
        ) from None


def check_media_type(content_type: str | None) -> None:
    """415 unless a body's media type is JSON (a body without one is read as FastAPI does)."""
    if content_type is not None and not _is_json(content_type):
        raise UnsupportedMediaType(
            f"The body must be application/json, not {content_type.split(';')[0]!r}."
        )


async def read_body(request: StrictJSONRequest, content_type: str | None) -> Any:
    """The body as FastAPI's request handler reads it, its errors included: ``Undefined``
    when empty, the bytes themselves without a ``content_type`` (validating them is a
    422), else the JSON value."""
    try:
        value: Any = await request.body()
        if not value:
            return Undefined
        if content_type is not None:
            value = await request.json()
    except json.JSONDecodeError as exc:
        raise RequestValidationError([_invalid_json(exc)], body=exc.doc) from exc
    except HTTPException:
        raise
    except Exception as exc:  # a body nested too deep for the parser, a client gone
        raise HTTPException(400, "There was an error parsing the body") from exc
    return value


# FastAPI's error for a body that is not JSON, word for word.
def _invalid_json(exc: json.JSONDecodeError) -> dict[str, Any]:
    return {
        "type": "json_invalid",
        "loc": ("body", exc.pos),
        "msg": "JSON decode error",
        "input": {},
        "ctx": {"error": exc.msg},
    }
