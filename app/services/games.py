"""Use cases on stored games: create, read, delete, faith, leaders, turn order, rounds, the
event log, and the calculations (gain adjustments, final scores) that use the stored
excommunications."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from app.domain import game as rules
from app.domain.draw import MAX_SEED
from app.domain.errors import InvalidInput
from app.domain.faith import add_faith, cap_faith
from app.domain.gains import Gain, GainsResult
from app.domain.game import GameState, NewPlayer, PlayerState
from app.domain.leaders import LeaderId
from app.domain.scoring import PlayerScore, ScoringPlayer
from app.domain.tiles import Catalogue
from app.services.access import Principal
from app.services.calculations import Calculations, Holding
from app.services.idempotency import Attempt, Idempotency, StoredAnswer
from app.services.limits import UNLIMITED, Rate, limit_game_creation
from app.services.stored import Credentials, LoggedEvent
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


@dataclass(frozen=True, slots=True)
class FaithChange:
    players: tuple[PlayerState, ...]
    lost: dict[str, int]
    version: int


class GameService:
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
    ) -> StoredAnswer:
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
        with self.idempotency.attempt("createGame", key, fingerprint) as attempt:
            if attempt.replay is not None:
                return attempt.replay
            assert attempt.uow is not None
            limit_game_creation(attempt.uow.limits, self.creation_rate, client)
            host_token = new_token()
            player_tokens = {p["id"]: new_token() for p in event.data["players"]}
            recovery_code = new_recovery_code()
            credentials = Credentials(
                hash_token(host_token),
                {player_id: hash_token(token) for player_id, token in player_tokens.items()},
                hash_recovery_code(recovery_code),
            )
            game_id = uuid.uuid4().hex
            game = self.transactions.create(attempt.uow, game_id, event, credentials)
            attempt.game_id = game_id
            attempt.answer = StoredAnswer(
                201,
                self.transactions.presenter.created(game, host_token, player_tokens, recovery_code),
                {"Location": f"/v1/games/{game_id}", "ETag": f'"{game.version}"'},
            )
        assert attempt.answer is not None
        return attempt.answer

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

    def gain_adjustments(
        self, game_id: str, player_id: str, gains: Sequence[Gain], token: str | None
    ) -> GainsResult:
        """R-GAIN-*: the player's stored excommunications and leaders apply."""
        with self.transactions.reading(game_id, token) as reading:
            player = reading.game.player(player_id)
            reading.who.require_host_or_player(player_id, "compute gain adjustments")
        return self.calculations.gains(
            [e.tile_id for e in player.excommunications], player.leaders, gains
        )

    def final_scores(
        self, game_id: str, players: Sequence[ScoringPlayer], token: str | None
    ) -> list[PlayerScore]:
        """R-END-*: every player listed once; their stored excommunications so far apply."""
        with self.transactions.reading(game_id, token) as reading:
            game = reading.game
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

    @reruns_lost_races
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

    def change_faith(
        self,
        game_id: str,
        player_id: str,
        delta: int,
        token: str | None,
        if_match: Collection[int] | None,
        key: str | None,
        fingerprint: str,
    ) -> StoredAnswer:
        """R-FT-3: add ``delta`` to the player's faith, on the faith it has when the change
        is stored (never on a stale read: concurrent changes all count); above 15 is lost,
        a removal stops at 0. Who may: as for setting it. A retry with the same
        Idempotency-Key replays the first answer."""
        if key is None:
            return self._change_faith(game_id, player_id, delta, token, if_match)
        with self.transactions.reading(game_id, token) as reading:
            # A replay must not skip access control.
            reading.game.player(player_id)
            _may_enter_faith(reading.game, reading.who, player_id)
        scope = f"changePlayerFaith:{game_id}:{player_id}"
        with self.idempotency.attempt(scope, key, fingerprint) as attempt:
            if attempt.replay is not None:
                return attempt.replay
            attempt.answer = self._change_faith(game_id, player_id, delta, token, if_match, attempt)
            attempt.game_id = game_id
        return attempt.answer

    @reruns_lost_races
    def _change_faith(
        self,
        game_id: str,
        player_id: str,
        delta: int,
        token: str | None,
        if_match: Collection[int] | None,
        attempt: Attempt | None = None,
    ) -> StoredAnswer:
        uow = None if attempt is None else attempt.uow
        with self.transactions.changing(game_id, token, uow=uow) as change:
            before = change.game.player(player_id).faith
            _may_enter_faith(change.game, change.who, player_id)
            change.check_version(if_match)
            # None when the faith stays (a gain at 15, a removal at 0): nothing is logged.
            change.apply(rules.change_faith(change.game, player_id, delta))
        # What the request loses and moves, whether or not the stored faith moves.
        after = add_faith(before, delta)
        return StoredAnswer(
            200,
            self.transactions.presenter.faith_changed(
                change.game, player_id, after.lost, after.faith - before
            ),
            {"ETag": f'"{change.game.version}"'},
        )

    def advance_round(
        self,
        game_id: str,
        token: str | None,
        if_match: Collection[int] | None,
        key: str | None,
        fingerprint: str,
    ) -> StoredAnswer:
        """R-RND-1, R-RND-3, R-RND-4: the host moves a game that tracks its rounds to the
        next round or report phase; answers the game. A retry with the same
        Idempotency-Key replays the first answer."""
        if key is not None:
            with self.transactions.reading(game_id, token) as reading:
                reading.who.require_host("advance the round")
        with self.idempotency.attempt(f"advanceRound:{game_id}", key, fingerprint) as attempt:
            if attempt.replay is not None:
                return attempt.replay
            with self.transactions.changing(game_id, token, uow=attempt.uow) as change:
                change.who.require_host("advance the round")
                change.check_version(if_match)
                change.apply(rules.advance_round(change.game))
            assert change.document is not None
            attempt.game_id = game_id
            attempt.answer = StoredAnswer(
                200, change.document.body, {"ETag": f'"{change.document.version}"'}
            )
        return attempt.answer

    def delete_game(
        self, game_id: str, token: str | None, if_match: Collection[int] | None
    ) -> None:
        """The host deletes the game with its events, its idempotency keys' answers and
        its limits, in one transaction; its followers' streams and long-polls end."""
        with self.transactions.deleting(game_id, token) as deletion:
            deletion.who.require_host("delete the game")
            deletion.check_version(if_match)


def _may_enter_faith(game: GameState, who: Principal, player_id: str) -> None:
    """The host sets or changes any player's faith; a player its own, only in a game
    created with ``players_enter_faith``."""
    if not (game.players_enter_faith and who.player_id == player_id):
        who.require_host(
            "set faith (a player sets its own only in games created with players_enter_faith: true)"
        )
