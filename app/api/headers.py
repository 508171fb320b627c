"""Request headers with meaning in the contract: bearer tokens, If-Match, Idempotency-Key."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Depends, Header

from app.domain.errors import InvalidInput

NO_VERSION = -1
_ETAG = re.compile(r'^(?:W/)?"?(\d{1,18})"?$')
_IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")


async def bearer_token(
    authorization: Annotated[
        str | None,
        Header(description="`Bearer <token>`: the game's host token or one of its player tokens."),
    ] = None,
) -> str | None:
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


async def expected_version(
    if_match: Annotated[
        str | None,
        Header(description='The version you last read, as its ETag (`"3"`); 412 when stale.'),
    ] = None,
) -> int | None:
    if if_match is None or if_match.strip() == "*":
        return None
    found = _ETAG.match(if_match.strip())
    # An If-Match this service never issued matches no version: the use case answers 412
    # after it has checked the token (so a stranger still gets 401, not 412).
    return int(found.group(1)) if found else NO_VERSION


async def idempotency_key(
    key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            description="A unique key per operation (e.g. a UUID); a retry with the same key "
            "and body replays the first answer.",
        ),
    ] = None,
) -> str | None:
    if key is not None and not _IDEMPOTENCY_KEY.match(key):
        raise InvalidInput(
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
            loc=("header", "Idempotency-Key"),
        )
    return key


def etag(version: int) -> str:
    return f'"{version}"'


Token = Annotated[str | None, Depends(bearer_token)]
IfMatch = Annotated[int | None, Depends(expected_version)]
IdempotencyKey = Annotated[str | None, Depends(idempotency_key)]
