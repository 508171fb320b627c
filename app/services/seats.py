"""Use cases on who holds each seat of a stored game: a seat's token issued anew or
revoked by the host, and the host seat regained with the game's recovery code.

A token change is stored with the new hashes in one transaction, so the token it
replaces is refused from its commit on, by every replica; it logs a
``seat_token_changed`` event that names the seat and never the token, so that the other
clients learn of it, and the streams of the replaced token end (``live.py``). It is not a
change of play: nothing undoes it, and it leaves what an undo or a redo would take.
"""

from __future__ import annotations

from collections.abc import Collection

from app.domain import game as rules
from app.domain.game import HOST_SEAT
from app.services.access import recover
from app.services.errors import Unauthorized
from app.services.idempotency import Answer, Idempotency, request_fingerprint
from app.services.storage import UnitOfWork
from app.services.stored import Credentials, Outcome
from app.services.tokens import hash_recovery_code, hash_token, new_recovery_code, new_token
from app.services.transactions import Change, GameTransactions


class SeatService:
    def __init__(self, transactions: GameTransactions, idempotency: Idempotency) -> None:
        self.transactions = transactions
        self.idempotency = idempotency

    def issue_token(
        self,
        game_id: str,
        seat: str,
        token: str | None,
        if_match: Collection[int] | None,
        key: str | None,
        fingerprint: str,
    ) -> Answer:
        """The host gives ``seat`` a new token (``host``: the host seat moves to another
        device); the seat's old token is refused from now on. A retry with the same
        Idempotency-Key and the same token replays the first answer, even when that token
        is the one the first call replaced."""
        scope = f"issueSeatToken:{game_id}:{seat}"
        # The token asking is part of what is retried, instead of a check before the
        # replay: moving the host seat refuses the very token that asked.
        keyed = request_fingerprint(fingerprint, hash_token(token or ""))

        def issue(uow: UnitOfWork) -> Answer:
            with self.transactions.changing(game_id, token, uow=uow) as change:
                self._may_change(change, seat, if_match)
                change.apply(rules.change_seat_token(change.game, seat, "reissued"))
            new = new_token()
            self._store(uow, change, seat, hash_token(new))
            return Answer(
                Outcome.GAME_CHANGED,
                game_id,
                change.game.version,
                self.transactions.presenter.seat_token(seat, new),
            )

        return self.idempotency.answer(scope, key, keyed, issue)

    def revoke_token(
        self, game_id: str, seat: str, token: str | None, if_match: Collection[int] | None
    ) -> int:
        """The host revokes a player's token (a phone lent out, lost or taken back): it is
        refused from now on, and the seat has none until the host issues it a new one. The
        game's version after it (unchanged when the seat had no token already: nothing is
        logged then)."""
        with (
            self.transactions.storage.unit_of_work(write=True) as uow,
            self.transactions.changing(game_id, token, uow=uow) as change,
        ):
            self._may_change(change, seat, if_match)
            event = rules.change_seat_token(change.game, seat, "revoked")
            assert change.credentials is not None
            if seat not in change.credentials.player_token_hashes:
                change.apply(None)  # nothing to revoke: nothing logged, the version stays
            else:
                change.apply(event)
                self._store(uow, change, seat, None)
        return change.game.version

    async def check_recovery(self, game_id: str, recovery_code: str, key: str | None) -> None:
        """What a recovery answers a stranger (404, 401), before it is admitted to what the
        changes of every game share (``app/api/platform/admission.py``). A code refused
        with an Idempotency-Key that is stored passes: a retry of a recovery whose answer
        was lost sends the code that recovery spent, and its transaction replays it."""
        try:
            await self.transactions.check_recovery(game_id, recovery_code)
        except Unauthorized:
            scope = _recovery_scope(game_id)
            if key is None or not await self.idempotency.stored(scope, key):
                raise

    def recover_host_seat(
        self, game_id: str, recovery_code: str, key: str | None, fingerprint: str
    ) -> Answer:
        """The host regains its seat with the game's recovery code, when its device and
        what it stored are lost: a new host token and a new recovery code; the old code and
        the old host token are refused from now on. A retry with the same Idempotency-Key
        and code replays the first answer (send one: without it, a lost answer loses the
        seat's new token and code)."""

        def recover_seat(uow: UnitOfWork) -> Answer:
            with self.transactions.changing(
                game_id,
                None,
                uow=uow,
                identify=lambda credentials: recover(credentials, recovery_code),
            ) as change:
                change.check_version(None)
                change.apply(rules.change_seat_token(change.game, HOST_SEAT, "recovered"))
            host_token, code = new_token(), new_recovery_code()
            self._store(uow, change, HOST_SEAT, hash_token(host_token), code)
            return Answer(
                Outcome.GAME_CHANGED,
                game_id,
                change.game.version,
                self.transactions.presenter.recovered(host_token, code),
            )

        return self.idempotency.answer(_recovery_scope(game_id), key, fingerprint, recover_seat)

    @staticmethod
    def _may_change(change: Change, seat: str, if_match: Collection[int] | None) -> None:
        if seat != HOST_SEAT:
            change.game.player(seat)  # 404 first
        change.who.require_host("change who holds a seat")
        change.check_version(if_match)

    @staticmethod
    def _store(
        uow: UnitOfWork,
        change: Change,
        seat: str,
        token_hash: str | None,
        recovery_code: str | None = None,
    ) -> None:
        """The game's credentials with ``seat``'s token hash replaced (None: revoked)."""
        old = change.credentials
        assert old is not None
        players = dict(old.player_token_hashes)
        host = old.host_token_hash
        if seat == HOST_SEAT:
            assert token_hash is not None
            host = token_hash
        elif token_hash is None:
            players.pop(seat, None)
        else:
            players[seat] = token_hash
        recovery = old.recovery_code_hash
        if recovery_code is not None:
            recovery = hash_recovery_code(recovery_code)
        uow.games.replace_credentials(change.game.id, Credentials(host, players, recovery))


def _recovery_scope(game_id: str) -> str:
    """What a recovery's Idempotency-Key is scoped to."""
    return f"recoverHostSeat:{game_id}"
