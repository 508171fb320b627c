"""The one deletion of stored games: by their host (``DELETE /v1/games/{id}``) and by the
retention alike."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.persistence.changes import ChangeFeed
from app.persistence.repositories import GameRepository


def delete_games(session: Session, game_ids: list[str], changes: ChangeFeed | None) -> int:
    """Delete the games in ``session``'s transaction, with their events, their write
    limits and the answers of their idempotency keys (a key's hash stays, marked gone, so
    that a retry answers 404); whoever follows them live, in any process, is told at the
    commit, and their streams and long-polls end. How many games went."""
    notify = changes.deletion(session, game_ids) if changes is not None else []
    return GameRepository(session).delete(game_ids, notify)
