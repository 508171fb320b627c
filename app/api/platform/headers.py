"""Request headers with meaning in the contract: bearer tokens, versions, Idempotency-Key."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.security import HTTPBearer
from starlette.requests import HTTPConnection

from app.api.platform.idempotency_keys import weakness
from app.api.problems.catalogue import BadRequest
from app.domain.errors import InvalidInput

# One tag of an If-Match / If-None-Match list: "3" or W/"3" (weak tags compare weakly).
_ETAG = re.compile(r'^(?:W/)?"?(\d{1,18})"?$', re.ASCII)


def _single(request: HTTPConnection, name: str) -> str | None:
    """The header's value; 400 when it is sent twice (which one would count?)."""
    values = request.headers.getlist(name)
    if len(values) > 1:
        raise BadRequest(f"The {name} header is sent {len(values)} times; send it once.")
    return values[0] if values else None


class _BearerToken(HTTPBearer):
    """The bearer token of a request, or None. Being an ``HTTPBearer`` declares the scheme
    in the contract (the Authorize button, generators' auth options); reading the token
    here, in the same one dependency, also refuses a duplicated header (measured: each
    dependency costs a read a few percent)."""

    async def __call__(self, request: HTTPConnection) -> str | None:  # type: ignore[override]
        authorization = _single(request, "Authorization")
        if authorization is None:
            return None
        scheme, _, token = authorization.partition(" ")
        return token.strip() or None if scheme.lower() == "bearer" else None


bearer_token = _BearerToken(
    auto_error=False,
    scheme_name="gameToken",
    description="The game's host token or one of its player tokens, as `Bearer <token>`.",
)


def _versions(value: str) -> frozenset[int]:
    """The versions an ETag list names; tags this service never issued name none."""
    versions = set()
    for tag in value.split(","):
        found = _ETAG.match(tag.strip())
        if found:
            versions.add(int(found.group(1)))
    return frozenset(versions)


async def expected_versions(
    if_match: Annotated[
        str | None,
        Header(
            alias="If-Match",
            description='The version you last read, as its ETag (`"3"`); 412 when the game '
            "is at another. A list passes when any of its tags is current.",
        ),
    ] = None,
) -> frozenset[int] | None:
    if if_match is None or if_match.strip() == "*":
        return None
    # An If-Match naming no version this service issued matches none: the use case answers
    # 412 after it has checked the token (so a stranger still gets 401, not 412).
    return _versions(if_match)


async def cached_versions(
    if_none_match: Annotated[
        str | None,
        Header(
            alias="If-None-Match",
            description='The ETag you hold (`"3"`): 304 Not Modified while it is current.',
        ),
    ] = None,
) -> frozenset[int]:
    return frozenset() if if_none_match is None else _versions(if_none_match)


async def idempotency_key(
    request: Request,
    key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            description="A random key per operation, as hard to guess as a token: a "
            "version-4 UUID, or 22 to 255 base64url characters, with at least 6 distinct "
            "characters (docs/api.md, Idempotency). A retry with the same key and body "
            "replays the first answer.",
        ),
    ] = None,
) -> str | None:
    key = _single(request, "Idempotency-Key")
    if key is not None and (why := weakness(key)) is not None:
        raise InvalidInput(why, loc=("header", "Idempotency-Key"))
    return key


Token = Annotated[str | None, Depends(bearer_token)]
IfMatch = Annotated[frozenset[int] | None, Depends(expected_versions)]
IfNoneMatch = Annotated[frozenset[int], Depends(cached_versions)]
IdempotencyKey = Annotated[str | None, Depends(idempotency_key)]
