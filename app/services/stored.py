"""What the storage port hands the use cases: plain values read from stored games, their
log and their idempotency keys (``storage.py`` declares the operations that return them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from app.domain.game import GameState


def utcnow() -> datetime:
    """Now, timezone-aware: the only time a stored row is given."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Credentials:
    """Who may touch a game: the hashes of its host token and of each player's token (a
    seat whose token was revoked has none), and of the code that regains the host seat
    (read with the version and the state, not with the document)."""

    host_token_hash: str
    player_token_hashes: Mapping[str, str]
    recovery_code_hash: str | None = None


@dataclass(frozen=True, slots=True)
class StoredGame:
    state: GameState
    credentials: Credentials
    # The host's write limit's theoretical arrival time (ms since the epoch), and each
    # player seat's [TAT, changes made]; app/services/client_limits.py.
    write_tat_ms: int = 0
    player_budgets: Mapping[str, list[int]] | None = None


@dataclass(frozen=True, slots=True)
class StoredDocument:
    """The read model of a game: its rendered document, made by the renderer ``key``."""

    version: int
    document: str | None
    key: str | None
    credentials: Credentials


@dataclass(frozen=True, slots=True)
class StoredVersion:
    version: int
    credentials: Credentials


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    seq: int
    type: str
    at: datetime
    data: dict[str, Any]


class Outcome(Enum):
    """What a use case that takes an Idempotency-Key did: the edge says it in its own terms
    (a status, a Location), the key keeps it for a retry."""

    GAME_CREATED = "game_created"
    REPORT_RESOLVED = "report_resolved"  # a new document: the report's resolution
    GAME_CHANGED = "game_changed"
    GAME_DELETED = "game_deleted"  # since: what is left of a deleted game's keys


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """An Idempotency-Key's claim and, once completed, its sealed answer. When the game it
    acted on is deleted, what is left until it expires is a completed key whose outcome
    is GAME_DELETED and no answer: a retry with it answers 404 instead of acting again."""

    key_hash: str
    request_hash: str
    state: str  # "in_flight" or "completed"
    locked_until: datetime
    created_at: datetime
    expires_at: datetime
    game_id: str | None = None
    outcome: Outcome | None = None
    version: int | None = None  # of the game, after the work
    body: bytes | None = None
