"""How a completed Idempotency-Key's outcome is kept in the columns of
``idempotency_keys``: in the format release 1.1 wrote there (the answer's HTTP status and
its headers), so that during a rolling upgrade either release replays a key the other
completed. The use cases know only the outcome and the game's version; the format can go
once no 1.1 replica runs and every key it wrote has expired (IDEMPOTENCY_TTL_HOURS)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.services.stored import Outcome

_STATUS = {
    Outcome.GAME_CREATED: 201,
    Outcome.REPORT_RESOLVED: 201,
    Outcome.GAME_CHANGED: 200,
    Outcome.GAME_DELETED: 404,
}


def answer_columns(outcome: Outcome, game_id: str | None, version: int | None) -> dict[str, Any]:
    """The ``status_code`` and ``headers`` columns of a key completed with ``outcome``."""
    if outcome is Outcome.GAME_DELETED:
        return {"status_code": _STATUS[outcome], "headers": None}
    headers = {"ETag": f'"{version}"'}
    if outcome is Outcome.GAME_CREATED:
        headers = {"Location": f"/v1/games/{game_id}", **headers}
    return {"status_code": _STATUS[outcome], "headers": headers}


def answer_from(
    status_code: int | None, headers: Mapping[str, str] | None
) -> tuple[Outcome | None, int | None]:
    """The outcome and the game's version kept in a key's columns (None, None while the
    key is in flight)."""
    if status_code == 404:
        return Outcome.GAME_DELETED, None
    if status_code is None or headers is None:
        return None, None
    etag = headers.get("ETag", "").strip('"')
    version = int(etag) if etag.isdigit() else None
    if status_code == 200:
        return Outcome.GAME_CHANGED, version
    if status_code == 201:
        created = "Location" in headers
        return (Outcome.GAME_CREATED if created else Outcome.REPORT_RESOLVED), version
    return None, None
