"""Use cases on the Vatican Reports of a stored game: read, decide, resolve (R-REP-*)."""

from __future__ import annotations

from collections.abc import Collection

from app.domain import game as rules
from app.domain.game import GameState
from app.domain.report import Choice
from app.services.idempotency import Answer, Idempotency
from app.services.storage import UnitOfWork
from app.services.stored import Outcome
from app.services.transactions import GameTransactions, reruns_lost_races


class ReportService:
    def __init__(self, transactions: GameTransactions, idempotency: Idempotency) -> None:
        self.transactions = transactions
        self.idempotency = idempotency

    async def get_report(self, game_id: str, period: int, token: str | None) -> GameState:
        """The game whose report of ``period`` is read (404 when there is none)."""
        reading = await self.transactions.read(game_id, token)
        reading.game.report(period)
        return reading.game

    async def current_version(self, game_id: str, token: str | None) -> int:
        """The game's version, for a conditional read: one statement, no state."""
        return await self.transactions.version(game_id, token)

    @reruns_lost_races
    def set_decision(
        self,
        game_id: str,
        period: int,
        player_id: str,
        choice: Choice,
        token: str | None,
        if_match: Collection[int] | None,
    ) -> GameState:
        """R-REP-5: an eligible player (or the host for them) chooses, until resolution."""
        with self.transactions.changing(game_id, token) as change:
            change.game.report(period)
            change.game.player(player_id)
            change.who.require_host_or_player(player_id, "choose in a report")
            change.check_version(if_match)
            change.apply(rules.set_decision(change.game, period, player_id, choice))
        return change.game

    def resolve(
        self,
        game_id: str,
        period: int,
        default_choice: Choice | None,
        token: str | None,
        if_match: Collection[int] | None,
        key: str | None,
        fingerprint: str,
    ) -> Answer:
        """R-REP-2..R-REP-10: resolve the report once, in period order, applying every
        outcome to the players atomically; a retry with the same Idempotency-Key replays
        the first answer."""
        if key is None:  # nothing to store beside the change: it may run again
            return self._resolve(game_id, period, default_choice, token, if_match)
        return self.idempotency.answer(
            f"resolveReport:{game_id}:{period}",
            key,
            fingerprint,
            lambda uow: self._resolve(game_id, period, default_choice, token, if_match, uow),
            check_access=lambda: self.transactions.require_host(game_id, token, "resolve a report"),
        )

    @reruns_lost_races
    def _resolve(
        self,
        game_id: str,
        period: int,
        default_choice: Choice | None,
        token: str | None,
        if_match: Collection[int] | None,
        uow: UnitOfWork | None = None,
    ) -> Answer:
        with self.transactions.changing(game_id, token, uow=uow) as change:
            change.game.report(period)
            change.who.require_host("resolve a report")
            change.check_version(if_match)
            change.apply(rules.resolve(change.game, period, default_choice))
        return Answer(
            Outcome.REPORT_RESOLVED,
            game_id,
            change.game.version,
            self.transactions.presenter.report(change.game, period),
        )
