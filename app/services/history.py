"""Use cases that undo and redo the changes of play of a stored game (R-UNDO-1..3).

Each replays the game's log (at most ``MAX_EVENTS_PER_GAME`` events) in its change's
transaction, the game's row locked, and logs the one event that reverts (or re-applies)
the change: ``app/domain/history.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import cast

from app.domain import history as rules
from app.domain.game import ChangeRef, EventType, GameEvent, GameState
from app.domain.history import LoggedChange, LogReader
from app.services.idempotency import Answer, Idempotency
from app.services.storage import Events, UnitOfWork
from app.services.stored import Outcome
from app.services.transactions import GameTransactions

Command = Callable[[GameState, LogReader], GameEvent]


class HistoryService:
    def __init__(self, transactions: GameTransactions, idempotency: Idempotency) -> None:
        self.transactions = transactions
        self.idempotency = idempotency

    def undo(
        self,
        game_id: str,
        token: str | None,
        if_match: Collection[int] | None,
        key: str | None,
        fingerprint: str,
    ) -> Answer:
        """R-UNDO-1, R-UNDO-3: the host undoes the last change of play still in effect.
        Each call goes one change further back; with If-Match, a repeated call cannot
        undo twice (the first moved the version on), and a retry with the same
        Idempotency-Key replays the first answer."""
        return self._revert("undoChange", rules.undo, game_id, token, if_match, key, fingerprint)

    def redo(
        self,
        game_id: str,
        token: str | None,
        if_match: Collection[int] | None,
        key: str | None,
        fingerprint: str,
    ) -> Answer:
        """R-UNDO-2: the host applies the most recently undone change again, while no
        change of play came since."""
        return self._revert("redoChange", rules.redo, game_id, token, if_match, key, fingerprint)

    def _revert(
        self,
        operation: str,
        command: Command,
        game_id: str,
        token: str | None,
        if_match: Collection[int] | None,
        key: str | None,
        fingerprint: str,
    ) -> Answer:
        undone = command is rules.undo
        action = "undo a change" if undone else "redo a change"

        def revert(uow: UnitOfWork) -> Answer:
            with self.transactions.changing(game_id, token, uow=uow) as change:
                change.who.require_host(action)
                change.check_version(if_match)
                # A full log refuses the event: before the replay, which it would waste.
                change.check_room()
                event = command(change.game, lambda seqs: _logged(uow.events, game_id, seqs))
                change.apply(event)
            reverted = ChangeRef(event.data["seq"], event.data["type"])
            return Answer(
                Outcome.GAME_CHANGED,
                game_id,
                change.game.version,
                self.transactions.presenter.reverted(change.game, reverted, undone=undone),
            )

        return self.idempotency.answer(
            f"{operation}:{game_id}",
            key,
            fingerprint,
            revert,
            check_access=lambda: self.transactions.require_host(game_id, token, action),
        )


def _logged(events: Events, game_id: str, seqs: Sequence[int]) -> list[LoggedChange]:
    logged = events.with_seqs(game_id, seqs)
    return [(e.seq, e.at, GameEvent(cast(EventType, e.type), e.data)) for e in logged]
