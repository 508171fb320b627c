"""Use cases on stored games: create, read, delete, faith (``faith.py``), leaders, turn
order, rounds, the event log, and the calculations (gain adjustments, final scores) that
use the stored excommunications."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from app.domain import game as rules
from app.domain.draw import MAX_SEED
from app.domain.errors import InvalidInput
from app.domain.gains import Gain, GainsResult
from app.domain.game import GameState, NewPlayer
from app.domain.leaders import LeaderId
from app.domain.scoring import PlayerScore, ScoringPlayer
from app.domain.tiles import Catalogue
from app.services.calculations import Calculations, Holding
from app.services.client_limits import UNLIMITED, Rate, limit_game_creation
from app.services.faith import FaithChange as FaithChange
from app.services.faith import FaithChanges
from app.services.idempotency import Answer, Idempotency
from app.services.storage import UnitOfWork
from app.services.stored import Credentials, LoggedEvent, Outcome
from app.services.tokens import (
    hash_recovery_code,
    hash_token,
    new_recovery_code,
    new_seed,
    new_token,
)
from app.services.transactions import (
    GameDocument,
    GameTransactions,
    reruns_lost_races,
)


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game creation request, as the API received it."""

    players: Sequence[NewPlayer]
    expansions: Sequence[str]
    seed: int | None
    tiles: Mapping[int, str] | None
    players_enter_faith: bool
    track_rounds: bool = False


class GameService(FaithChanges):
    def __init__(
        self,
        transactions: GameTransactions,
        idempotency: Idempotency,
        catalogue: Catalogue,
        calculations: Calculations,
        *,
        creation_rate: Rate = UNLIMITED,
    ) -> None:
        self.transactions = transactions
        self.idempotency = idempotency
        self.catalogue = catalogue
        self.calculations = calculations
        self.creation_rate = creation_rate

    # ---- creation -----------------------------------------------------------------------

    def create_game(
        self, new: NewGame, key: str | None, fingerprint: str, client: str = "unknown"
    ) -> Answer:
        """Validate, then store the game with fresh tokens and a recovery code (R-DRAW-1..3);
        a retry with the same Idempotency-Key replays the first answer, tokens included (and
        is not counted against the ``client`` address's creation limit)."""
        event = rules.create_game(
            self.catalogue,
            new.players,
            new.expansions,
            seed=new.seed,
            tiles=new.tiles,
            players_enter_faith=new.players_enter_faith,
            random_seed=new_seed(MAX_SEED),
            track_rounds=new.track_rounds,
        )
        game_id = uuid.uuid4().hex

        def create(uow: UnitOfWork) -> Answer:
            limit_game_creation(uow.limits, self.creation_rate, client)
            host_token = new_token()
            player_tokens = {p["id"]: new_token() for p in event.data["players"]}
            recovery_code = new_recovery_code()
            credentials = Credentials(
                hash_token(host_token),
                {player_id: hash_token(token) for player_id, token in player_tokens.items()},
                hash_recovery_code(recovery_code),
            )
            game = self.transactions.create(uow, game_id, event, credentials)
            return Answer(
                Outcome.GAME_CREATED,
                game_id,
                game.version,
                self.transactions.presenter.created(game, host_token, player_tokens, recovery_code),
            )

        return self.idempotency.answer("createGame", key, fingerprint, create)

    # ---- reads --------------------------------------------------------------------------

    async def get_game(self, game_id: str, token: str | None) -> GameDocument:
        """Async, unlike the other use cases: a read holds no thread where the database
        allows it (PostgreSQL), and one from the threadpool otherwise."""
        return await self.transactions.document(game_id, token)

    async def current_version(self, game_id: str, token: str | None) -> int:
        return await self.transactions.version(game_id, token)

    async def follower(self, game_id: str, token: str | None) -> tuple[int, str]:
        """The game's version and the seat ``token`` holds, for a live follower (whose
        stream ends when that seat's token is replaced)."""
        return await self.transactions.seat_version(game_id, token)

    def list_events(
        self, game_id: str, after: int, limit: int, token: str | None
    ) -> tuple[int, list[LoggedEvent]]:
        """The game's version and its events after ``after``, oldest first."""
        return self.transactions.events(game_id, token, after, limit)

    async def gain_adjustments(
        self, game_id: str, player_id: str, gains: Sequence[Gain], token: str | None
    ) -> GainsResult:
        """R-GAIN-*: the player's stored excommunications and leaders apply."""
        reading = await self.transactions.read(game_id, token)
        player = reading.game.player(player_id)
        reading.who.require_host_or_player(player_id, "compute gain adjustments")
        return self.calculations.gains(
            [e.tile_id for e in player.excommunications], player.leaders, gains
        )

    async def final_scores(
        self, game_id: str, players: Sequence[ScoringPlayer], token: str | None
    ) -> list[PlayerScore]:
        """R-END-*: every player listed once; their stored excommunications so far apply."""
        game = (await self.transactions.read(game_id, token)).game
        stored = {p.id: p for p in game.players}
        listed = [p.id for p in players]
        for index, player_id in enumerate(listed):
            if player_id not in stored:
                raise InvalidInput(
                    f"game {game.id} has no player {player_id!r}", loc=("players", index, "id")
                )
        if sorted(listed) != sorted(stored):
            missing = sorted(set(stored) - set(listed))
            raise InvalidInput(
                "list every player of the game exactly once"
                + (f"; missing: {', '.join(missing)}" if missing else ""),
                loc=("players",),
            )
        return self.calculations.final_scores(
            [Holding(p, [e.tile_id for e in stored[p.id].excommunications]) for p in players]
        )

    # ---- changes ------------------------------------------------------------------------

    def set_leaders(
        self,
        game_id: str,
        player_id: str,
        leaders: Sequence[LeaderId],
        token: str | None,
        if_match: Collection[int] | None,
    ) -> GameState:
        with self.transactions.changing(game_id, token) as change:
            change.game.player(player_id)
            change.who.require_host("change leaders")
            change.check_version(if_match)
            change.apply(rules.set_leaders(change.game, player_id, leaders))
        return change.game

    @reruns_lost_races
    def set_turn_order(
        self,
        game_id: str,
        order: Sequence[str],
        token: str | None,
        if_match: Collection[int] | None,
    ) -> GameDocument:
        """R-REP-3: the turn order reports use; answers the game's document."""
        with self.transactions.changing(game_id, token) as change:
            change.who.require_host("change the turn order")
            change.check_version(if_match)
            change.apply(rules.set_turn_order(change.game, order))
        assert change.document is not None
        return change.document

    def advance_round(
        self,
        game_id: str,
        token: str | None,
        if_match: Collection[int] | None,
        key: str | None,
        fingerprint: str,
    ) -> Answer:
        """R-RND-1, R-RND-3, R-RND-4: the host moves a game that tracks its rounds to the
        next round or report phase; answers the game. A retry with the same
        Idempotency-Key replays the first answer."""
        if key is None:  # nothing to store beside the change: it may run again
            return self._advance_round(game_id, token, if_match)
        return self.idempotency.answer(
            f"advanceRound:{game_id}",
            key,
            fingerprint,
            lambda uow: self._advance_round(game_id, token, if_match, uow),
            check_access=lambda: self.transactions.require_host(
                game_id, token, "advance the round"
            ),
        )

    @reruns_lost_races
    def _advance_round(
        self,
        game_id: str,
        token: str | None,
        if_match: Collection[int] | None,
        uow: UnitOfWork | None = None,
    ) -> Answer:
        with self.transactions.changing(game_id, token, uow=uow) as change:
            change.who.require_host("advance the round")
            change.check_version(if_match)
            change.apply(rules.advance_round(change.game))
        assert change.document is not None
        document = change.document
        return Answer(Outcome.GAME_CHANGED, game_id, document.version, document.body)

    def delete_game(
        self, game_id: str, token: str | None, if_match: Collection[int] | None
    ) -> None:
        """The host deletes the game with its events, its idempotency keys' answers and
        its limits, in one transaction; its followers' streams and long-polls end."""
        with self.transactions.deleting(game_id, token) as deletion:
            deletion.who.require_host("delete the game")
            deletion.check_version(if_match)
