"""Use cases on stored games. Each runs in one transaction: load (locked when writing),
check access and version, call the rules, save, and append one event to the log.

Every change bumps the game's ``version`` by one and writes the event whose ``seq`` is
that version, so the log and the state can never disagree.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar, overload

from sqlalchemy.orm import Session

from app.domain.draw import MAX_SEED, Draw, draw_tiles, named_tiles
from app.domain.errors import InvalidInput, NotEligible, NotFound, ReportOutOfOrder, ReportResolved
from app.domain.faith import PERIODS, cap_faith, period_info
from app.domain.gains import Gain, GainsResult, apply_gains
from app.domain.report import Choice, Outcome, ReportPlayer, is_eligible, resolve_report
from app.domain.scoring import PlayerScore, ScoringPlayer, final_scores
from app.domain.tiles import Catalogue, Tile
from app.persistence.db import Database
from app.persistence.models import Excommunication, Game, Player, Report, ReportDecision, utcnow
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
from app.services.tokens import hash_token, new_seed, new_token

T = TypeVar("T")


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
def _player(game: Game, player_id: str) -> Player: ...
@overload
def _player(game: GameView, player_id: str) -> PlayerView: ...
def _player(game: GameLike, player_id: str) -> PlayerLike:
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


class GameService:
    def __init__(self, db: Database, catalogue: Catalogue) -> None:
        self.db = db
        self.catalogue = catalogue

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

    def get_game(self, game_id: str, token: str | None) -> GameView:
        return self._read(game_id, token, lambda s, game, who: game)

    def get_report(
        self, game_id: str, period: int, token: str | None
    ) -> tuple[GameView, ReportView]:
        return self._read(game_id, token, lambda s, game, who: (game, report_of(game, period)))

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
            player = _player(game, player_id)
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
                    _player(game, player_id)  # named in the path: 404
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
                player = _player(game, player_id)
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
            _player(game, player_id)
            who.require_host("change leaders")

        def apply(game: Game, who: Principal) -> tuple[str, dict[str, Any], tuple[Game, Player]]:
            if len(set(leaders)) != len(leaders):
                raise InvalidInput("a leader is listed twice", loc=("leaders",))
            player = _player(game, player_id)
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

    def set_decision(
        self,
        game_id: str,
        period: int,
        player_id: str,
        choice: Choice,
        token: str | None,
        expected_version: int | None,
    ) -> tuple[Game, Report]:
        """R-REP-5: an eligible player chooses support or refuse, until resolution."""

        def authorize(game: Game, who: Principal) -> None:
            report_of(game, period)
            _player(game, player_id)
            who.require_host_or_player(player_id, "choose in a report")

        def apply(game: Game, who: Principal) -> tuple[str, dict[str, Any], tuple[Game, Report]]:
            report = report_of(game, period)
            player = _player(game, player_id)
            _check_open_in_order(game, report)
            if not is_eligible(period, player.faith):
                raise NotEligible(
                    f"Player {player_id} has faith {player.faith}, below the period {period} "
                    f"threshold {period_info(period).threshold}: a short player has no choice "
                    "and is excommunicated (R-REP-4, R-REP-5)."
                )
            now = utcnow()
            existing = next((d for d in report.decisions if d.player_id == player_id), None)
            if existing is None:
                report.decisions.append(
                    ReportDecision(player_id=player_id, choice=choice, updated_at=now)
                )
            else:
                existing.choice = choice
                existing.updated_at = now
            data = {"period": period, "player_id": player_id, "choice": choice}
            return "decision_set", data, (game, report)

        return self._change(game_id, token, expected_version, authorize, apply)

    def resolve(
        self,
        session: Session,
        game_id: str,
        period: int,
        default_choice: Choice | None,
        token: str | None,
        expected_version: int | None,
    ) -> tuple[Game, Report]:
        """R-REP-2..R-REP-10: resolve a report once, in period order, applying every
        outcome to the players atomically. Runs in the caller's (idempotent) transaction."""

        def authorize(game: Game, who: Principal) -> None:
            report_of(game, period)
            who.require_host("resolve a report")

        def apply(game: Game, who: Principal) -> tuple[str, dict[str, Any], tuple[Game, Report]]:
            report = report_of(game, period)
            _check_open_in_order(game, report)
            choices: dict[str, Choice] = {
                d.player_id: "refuse" if d.choice == "refuse" else "support"
                for d in report.decisions
            }
            players = [
                ReportPlayer(p.id, p.faith, frozenset(p.leaders), choices.get(p.id))
                for p in turn_order(game)
            ]
            result = resolve_report(period, game.tile_ids[str(period)], players, default_choice)
            stored = {p.id: p for p in game.players}
            outcomes: list[dict[str, Any]] = []
            for outcome in result.outcomes:
                player = stored[outcome.player_id]
                player.faith = outcome.faith_after
                player.report_victory_points += outcome.victory_points
                if outcome.excommunicated and outcome.tile_id is not None:
                    player.excommunications.append(
                        Excommunication(period=period, tile_id=outcome.tile_id)
                    )
                outcomes.append(outcome_data(outcome))
            report.status = "resolved"
            report.outcomes = outcomes
            report.resolved_at = utcnow()
            data = {"period": period, "default_choice": default_choice, "outcomes": outcomes}
            return "report_resolved", data, (game, report)

        return self._change(game_id, token, expected_version, authorize, apply, session)


def outcome_data(outcome: Outcome) -> dict[str, Any]:
    """An outcome as stored JSON, in the shape of API.md's Outcome."""
    return {
        "player_id": outcome.player_id,
        "faith_before": outcome.faith_before,
        "faith_after": outcome.faith_after,
        "threshold": outcome.threshold,
        "outcome": outcome.outcome,
        "excommunicated": outcome.excommunicated,
        "tile_id": outcome.tile_id,
        "victory_points": {
            "faith": outcome.faith_victory_points,
            "sisto_iv": outcome.sisto_iv_victory_points,
            "total": outcome.victory_points,
        },
        "rules": list(outcome.rules),
        "notes": list(outcome.notes),
    }


def _check_open_in_order(game: Game, report: Report) -> None:
    """R-REP-2: reports resolve in period order, each once."""
    if report.status == "resolved":
        raise ReportResolved(f"The period {report.period} report is already resolved.")
    earlier = [r.period for r in game.reports if r.period < report.period and r.status == "open"]
    if earlier:
        raise ReportOutOfOrder(
            f"The period {earlier[0]} report must be resolved before period {report.period}."
        )
