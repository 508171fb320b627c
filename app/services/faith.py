"""Use cases on the players' Faith in a stored game (R-FT-2, R-FT-3): set it, or change it
by a delta on the faith it has when the change is stored. ``GameService`` serves them."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from app.domain import game as rules
from app.domain.errors import InvalidInput
from app.domain.faith import add_faith, cap_faith
from app.domain.game import GameState, PlayerState
from app.services.access import Principal
from app.services.idempotency import Answer, Idempotency
from app.services.storage import UnitOfWork
from app.services.stored import Outcome
from app.services.transactions import GameTransactions, reruns_lost_races


@dataclass(frozen=True, slots=True)
class FaithChange:
    players: tuple[PlayerState, ...]
    lost: dict[str, int]
    version: int


class FaithChanges:
    """The Faith use cases of ``GameService``, on its transactions and idempotency."""

    transactions: GameTransactions
    idempotency: Idempotency

    @reruns_lost_races
    def set_faith(
        self,
        game_id: str,
        values: Mapping[str, int],
        token: str | None,
        if_match: Collection[int] | None,
        *,
        single: bool,
    ) -> FaithChange:
        """R-FT-2: store faith (above 15 kept as 15), answering how much was lost. The host
        may; a player only its own, in a game created with ``players_enter_faith``."""
        with self.transactions.changing(game_id, token) as change:
            game, who = change.game, change.who
            for player_id in values:
                if single:
                    game.player(player_id)  # named in the path: 404
                elif player_id not in {p.id for p in game.players}:
                    raise InvalidInput(  # named in the body: the body is wrong
                        f"game {game.id} has no player {player_id!r}", loc=("faith", player_id)
                    )
            if single:
                (player_id,) = values
                _may_enter_faith(game, who, player_id)
            else:
                who.require_host("set several players' faith at once")
            change.check_version(if_match)
            change.apply(rules.set_faith(game, values))
        # What the request loses, whether or not the stored faith moves.
        lost = {player_id: cap_faith(value).lost for player_id, value in values.items()}
        players = tuple(p for p in change.game.players if p.id in values)
        return FaithChange(players, lost, change.game.version)

    def change_faith(
        self,
        game_id: str,
        player_id: str,
        delta: int,
        token: str | None,
        if_match: Collection[int] | None,
        key: str | None,
        fingerprint: str,
    ) -> Answer:
        """R-FT-3: add ``delta`` to the player's faith, on the faith it has when the change
        is stored (never on a stale read: concurrent changes all count); above 15 is lost,
        a removal stops at 0. Who may: as for setting it. A retry with the same
        Idempotency-Key replays the first answer."""
        if key is None:
            return self._change_faith(game_id, player_id, delta, token, if_match)

        def check_access() -> None:
            with self.transactions.reading(game_id, token) as reading:
                reading.game.player(player_id)
                _may_enter_faith(reading.game, reading.who, player_id)

        return self.idempotency.answer(
            f"changePlayerFaith:{game_id}:{player_id}",
            key,
            fingerprint,
            lambda uow: self._change_faith(game_id, player_id, delta, token, if_match, uow),
            check_access=check_access,
        )

    @reruns_lost_races
    def _change_faith(
        self,
        game_id: str,
        player_id: str,
        delta: int,
        token: str | None,
        if_match: Collection[int] | None,
        uow: UnitOfWork | None = None,
    ) -> Answer:
        with self.transactions.changing(game_id, token, uow=uow) as change:
            before = change.game.player(player_id).faith
            _may_enter_faith(change.game, change.who, player_id)
            change.check_version(if_match)
            # None when the faith stays (a gain at 15, a removal at 0): nothing is logged.
            change.apply(rules.change_faith(change.game, player_id, delta))
        # What the request loses and moves, whether or not the stored faith moves.
        after = add_faith(before, delta)
        return Answer(
            Outcome.GAME_CHANGED,
            game_id,
            change.game.version,
            self.transactions.presenter.faith_changed(
                change.game, player_id, after.lost, after.faith - before
            ),
        )


def _may_enter_faith(game: GameState, who: Principal, player_id: str) -> None:
    """The host sets or changes any player's faith; a player its own, only in a game
    created with ``players_enter_faith``."""
    if not (game.players_enter_faith and who.player_id == player_id):
        who.require_host(
            "set faith (a player sets its own only in games created with players_enter_faith: true)"
        )
