"""The transactions every use case on a stored game runs in.

A read takes a snapshot of the game (plain values) and checks the token. A change loads
the game locked, checks access (401/403/404) and then the version (412), applies itself,
bumps the version by one and appends the event whose ``seq`` is that version, all in one
transaction, so the log and the state can never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar, overload

from sqlalchemy.orm import Session

from app.domain.errors import NotFound
from app.domain.tiles import Catalogue, Tile
from app.persistence.db import Database
from app.persistence.models import Game, Player, Report, utcnow
from app.persistence.repositories import EventRepository, GameRepository
from app.persistence.views import (
    GameLike,
    GameView,
    PlayerLike,
    PlayerView,
    ReportLike,
    ReportView,
)
from app.services.access import Principal, authenticate
from app.services.errors import VersionMismatch

T = TypeVar("T")


# Game ids are uuid4 hex: anything else cannot name a game, so it is a 404 without a query
# (and never reaches the database: PostgreSQL rejects a NUL byte in text outright).
_GAME_ID = re.compile(r"[0-9a-f]{32}")


def _require_game(repository: GameRepository, game_id: str, *, with_reports: bool) -> Game:
    """The game, locked for this transaction (writes)."""
    if not _GAME_ID.fullmatch(game_id):
        raise NotFound(f"No game {game_id!r}.")
    game = repository.get(game_id, for_update=True, with_reports=with_reports)
    if game is None:
        raise NotFound(f"No game {game_id!r}.")
    return game


def _snapshot(repository: GameRepository, game_id: str) -> GameView:
    """The game as plain values (reads)."""
    game = repository.read(game_id) if _GAME_ID.fullmatch(game_id) else None
    if game is None:
        raise NotFound(f"No game {game_id!r}.")
    return game


@overload
def player_of(game: Game, player_id: str) -> Player: ...
@overload
def player_of(game: GameView, player_id: str) -> PlayerView: ...
def player_of(game: GameLike, player_id: str) -> PlayerLike:
    for player in game.players:
        if player.id == player_id:
            return player
    raise NotFound(f"Game {game.id} has no player {player_id!r}.")


def turn_order(game: GameLike) -> list[PlayerLike]:
    return sorted(game.players, key=lambda p: p.turn_position)


@overload
def report_of(game: Game, period: int) -> Report: ...
@overload
def report_of(game: GameView, period: int) -> ReportView: ...
def report_of(game: GameLike, period: int) -> ReportLike:
    for report in game.reports:
        if report.period == period:
            return report
    raise NotFound(f"There is no report for period {period}: periods are 1, 2 and 3.")


def player_tiles(catalogue: Catalogue, player: PlayerLike) -> tuple[Tile, ...]:
    return tuple(catalogue.require(e.tile_id) for e in player.excommunications)


class GameStore:
    """Reads and changes of one stored game; the use-case classes build on it."""

    def __init__(self, db: Database, catalogue: Catalogue) -> None:
        self.db = db
        self.catalogue = catalogue

    def _read(
        self, game_id: str, token: str | None, use: Callable[[Session, GameView, Principal], T]
    ) -> T:
        with self.db.transaction(write=False) as session:
            game = _snapshot(GameRepository(session), game_id)
            return use(session, game, authenticate(game, token))

    def require_host(self, game_id: str, token: str | None, action: str) -> None:
        """401/403/404 before anything else: e.g. before an idempotent replay is looked up."""

        def check(session: Session, game: GameView, who: Principal) -> None:
            who.require_host(action)

        self._read(game_id, token, check)

    def _change(
        self,
        game_id: str,
        token: str | None,
        expected_version: int | None,
        authorize: Callable[[Game, Principal], None],
        apply: Callable[[Game, Principal], tuple[str, dict[str, Any], T]],
        session: Session | None = None,
        *,
        with_reports: bool = True,
    ) -> T:
        """Load the game locked, check access (401/403/404), then the version (412), then
        apply the change, bump the version and log the event, all in one transaction."""
        if session is None:
            with self.db.transaction(write=True) as own:
                return self._change(
                    game_id,
                    token,
                    expected_version,
                    authorize,
                    apply,
                    own,
                    with_reports=with_reports,
                )
        game = _require_game(GameRepository(session), game_id, with_reports=with_reports)
        who = authenticate(game, token)
        authorize(game, who)
        if expected_version is not None and expected_version != game.version:
            named = (
                f"names version {expected_version}"
                if expected_version >= 0
                else 'is not an ETag this service issued (e.g. "3")'
            )
            raise VersionMismatch(
                f"If-Match {named}, but the game is at version {game.version}: "
                "read it again and retry.",
                current_version=game.version,
            )
        event_type, data, result = apply(game, who)
        now = utcnow()
        game.version += 1
        game.updated_at = now
        EventRepository(session).append(game.id, game.version, event_type, data, now)
        return result
