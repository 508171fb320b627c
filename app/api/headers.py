"""Request headers with meaning in the contract: bearer tokens, If-Match, Idempotency-Key."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Depends, Header, Request

from app.domain.errors import InvalidInput
from app.domain.tiles import Catalogue
from app.services.games import GameService
from app.services.idempotency import Idempotency
from app.services.reports import ReportService

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


async def get_catalogue(request: Request) -> Catalogue:
    """The tile catalogue the app loaded at start-up (base tiles plus configured packs)."""
    catalogue: Catalogue = request.app.state.catalogue
    return catalogue


async def get_game_service(request: Request) -> GameService:
    service: GameService = request.app.state.game_service
    return service


async def get_report_service(request: Request) -> ReportService:
    service: ReportService = request.app.state.report_service
    return service


Token = Annotated[str | None, Depends(bearer_token)]
IfMatch = Annotated[int | None, Depends(expected_version)]
IdempotencyKey = Annotated[str | None, Depends(idempotency_key)]
Games = Annotated[GameService, Depends(get_game_service)]
Reports = Annotated[ReportService, Depends(get_report_service)]
Tiles = Annotated[Catalogue, Depends(get_catalogue)]


async def get_idempotency(request: Request) -> Idempotency:
    idempotency: Idempotency = request.app.state.idempotency
    return idempotency


Replays = Annotated[Idempotency, Depends(get_idempotency)]
