"""Use cases on stored games: create, read, faith, leaders, turn order, and the
computations (gain adjustments, final scores) that use the stored excommunications."""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.orm import Session

from app.domain.draw import MAX_SEED, Draw, draw_tiles, named_tiles
from app.domain.errors import InvalidInput
from app.domain.faith import PERIODS, cap_faith
from app.domain.gains import Gain, GainsResult, apply_gains
from app.domain.scoring import PlayerScore, ScoringPlayer, final_scores
from app.persistence.models import Game, Player, Report, utcnow
from app.persistence.repositories import EventRepository, GameRepository
from app.persistence.views import GameView
from app.services.access import Principal
from app.services.store import GameStore, player_of, player_tiles, turn_order
from app.services.tokens import hash_token, new_seed, new_token


@dataclass(frozen=True, slots=True)
class NewPlayer:
    name: str
    leaders: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GamePlan:
    """A validated game creation request, ready to store."""

    players: tuple[NewPlayer, ...]
    expansions: tuple[str, ...]
    draw: Draw
    players_enter_faith: bool


@dataclass(frozen=True, slots=True)
class CreatedGame:
    game: Game
    host_token: str
    player_tokens: dict[str, str]


class GameService(GameStore):
    # ---- creation ---------------------------------------------------------------------

    def plan_game(
        self,
        players: Sequence[NewPlayer],
        expansions: Sequence[str],
        seed: int | None,
        tiles: Mapping[int, str] | None,
        players_enter_faith: bool,
    ) -> GamePlan:
        """Validate a creation request before anything is written (R-DRAW-1..3)."""
        seen: dict[str, int] = {}
        for index, player in enumerate(players):
            # Names that look the same are the same: compare them normalised (NFKC) and
            # case-folded; each is stored as sent.
            folded = unicodedata.normalize("NFKC", player.name).casefold()
            if folded in seen:
                raise InvalidInput(
                    f"player names must be unique: {player.name!r} is also player {seen[folded]}",
                    loc=("players", index, "name"),
                )
            seen[folded] = index
            if len(set(player.leaders)) != len(player.leaders):
                raise InvalidInput("a leader is listed twice", loc=("players", index, "leaders"))
        if len(set(expansions)) != len(expansions):
            raise InvalidInput("an expansion is listed twice", loc=("expansions",))
        if tiles is not None and seed is not None:
            raise InvalidInput("give either a seed or the three tiles, not both", loc=("tiles",))
        if tiles is not None:
            draw = named_tiles(self.catalogue, tiles, expansions)
        else:
            draw = draw_tiles(
                self.catalogue, expansions, new_seed(MAX_SEED) if seed is None else seed
            )
        return GamePlan(tuple(players), tuple(expansions), draw, players_enter_faith)

    def create_game(self, session: Session, plan: GamePlan) -> CreatedGame:
        """Store a planned game; runs inside the caller's (idempotent) transaction."""
        now = utcnow()
        host_token = new_token()
        game = Game(
            id=uuid.uuid4().hex,
            version=1,
            seed=plan.draw.seed,
            expansions=list(plan.expansions),
            tile_ids={str(period): tile.id for period, tile in plan.draw.tiles.items()},
            players_enter_faith=plan.players_enter_faith,
            host_token_hash=hash_token(host_token),
            created_at=now,
            updated_at=now,
        )
        tokens: dict[str, str] = {}
        for seat, new in enumerate(plan.players):
            player_id = f"p{seat + 1}"
            tokens[player_id] = new_token()
            game.players.append(
                Player(
                    id=player_id,
                    name=new.name,
                    seat=seat,
                    turn_position=seat,
                    faith=0,
                    report_victory_points=0,
                    leaders=list(new.leaders),
                    token_hash=hash_token(tokens[player_id]),
                    excommunications=[],
                )
            )
        for period in PERIODS:
            game.reports.append(
                Report(period=period.number, status="open", outcomes=None, decisions=[])
            )
        GameRepository(session).add(game)
        EventRepository(session).append(
            game.id,
            game.version,
            "game_created",
            {
                "players": [
                    {"id": p.id, "name": p.name, "leaders": p.leaders} for p in game.players
                ],
                "expansions": game.expansions,
                "seed": game.seed,
                "tiles": game.tile_ids,
                "players_enter_faith": game.players_enter_faith,
            },
            now,
        )
        return CreatedGame(game, host_token, tokens)

    # ---- reads ------------------------------------------------------------------------

    def get_game(self, game_id: str, token: str | None) -> GameView:
        return self._read(game_id, token, lambda s, game, who: game)

    def list_events(self, game_id: str, after: int, limit: int, token: str | None) -> list[Any]:
        return self._read(
            game_id,
            token,
            lambda s, game, who: EventRepository(s).list_after(game_id, after, limit),
        )

    def gain_adjustments(
        self, game_id: str, player_id: str, gains: Sequence[Gain], token: str | None
    ) -> GainsResult:
        """R-GAIN-*: the player's stored excommunications and leaders apply."""

        def use(session: Session, game: GameView, who: Principal) -> GainsResult:
            player = player_of(game, player_id)
            who.require_host_or_player(player_id, "compute gain adjustments")
            tiles = player_tiles(self.catalogue, player)
            return apply_gains(tiles, frozenset(player.leaders), gains)

        return self._read(game_id, token, use)

    def final_scores(
        self, game_id: str, players: Sequence[ScoringPlayer], token: str | None
    ) -> list[PlayerScore]:
        """R-END-*: every player listed once; their stored excommunications so far apply."""

        def use(session: Session, game: GameView, who: Principal) -> list[PlayerScore]:
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
            with_tiles = [
                replace(p, tiles=player_tiles(self.catalogue, stored[p.id])) for p in players
            ]
            return final_scores(with_tiles)

        return self._read(game_id, token, use)

    # ---- changes ----------------------------------------------------------------------

    def set_faith(
        self,
        game_id: str,
        values: Mapping[str, int],
        token: str | None,
        expected_version: int | None,
        *,
        single: bool,
    ) -> tuple[Game, dict[str, int]]:
        """R-FT-2: store faith (above 15 kept as 15), answering how much was lost."""

        def authorize(game: Game, who: Principal) -> None:
            known = {p.id for p in game.players}
            for player_id in values:
                if single:
                    player_of(game, player_id)  # named in the path: 404
                elif player_id not in known:  # named in the body: the body is wrong
                    raise InvalidInput(
                        f"game {game.id} has no player {player_id!r}", loc=("faith", player_id)
                    )
            own = single and game.players_enter_faith and who.player_id in values
            if not own:
                who.require_host(
                    "set faith (a player sets its own only in games created with "
                    "players_enter_faith: true)"
                    if single
                    else "set several players' faith at once"
                )

        def apply(
            game: Game, who: Principal
        ) -> tuple[str, dict[str, Any], tuple[Game, dict[str, int]]]:
            lost: dict[str, int] = {}
            changes = []
            for player_id, value in values.items():
                player = player_of(game, player_id)
                capped = cap_faith(value)
                changes.append(
                    {
                        "player_id": player_id,
                        "from": player.faith,
                        "to": capped.faith,
                        "lost": capped.lost,
                    }
                )
                player.faith = capped.faith
                lost[player_id] = capped.lost
            return "faith_set", {"changes": changes}, (game, lost)

        return self._change(game_id, token, expected_version, authorize, apply, with_reports=False)

    def set_leaders(
        self,
        game_id: str,
        player_id: str,
        leaders: Sequence[str],
        token: str | None,
        expected_version: int | None,
    ) -> tuple[Game, Player]:
        def authorize(game: Game, who: Principal) -> None:
            player_of(game, player_id)
            who.require_host("change leaders")

        def apply(game: Game, who: Principal) -> tuple[str, dict[str, Any], tuple[Game, Player]]:
            if len(set(leaders)) != len(leaders):
                raise InvalidInput("a leader is listed twice", loc=("leaders",))
            player = player_of(game, player_id)
            data = {"player_id": player_id, "from": list(player.leaders), "to": list(leaders)}
            player.leaders = list(leaders)
            return "leaders_set", data, (game, player)

        return self._change(game_id, token, expected_version, authorize, apply, with_reports=False)

    def set_turn_order(
        self, game_id: str, order: Sequence[str], token: str | None, expected_version: int | None
    ) -> Game:
        def authorize(game: Game, who: Principal) -> None:
            who.require_host("change the turn order")

        def apply(game: Game, who: Principal) -> tuple[str, dict[str, Any], Game]:
            ids = sorted(p.id for p in game.players)
            if sorted(order) != ids:
                raise InvalidInput(
                    f"the turn order lists every player exactly once: {', '.join(ids)}",
                    loc=("turn_order",),
                )
            previous = [p.id for p in turn_order(game)]
            position = {player_id: index for index, player_id in enumerate(order)}
            for player in game.players:
                player.turn_position = position[player.id]
            return "turn_order_set", {"from": previous, "to": list(order)}, game

        return self._change(game_id, token, expected_version, authorize, apply)
