"""A stored game: its state, the changes a table makes to it, and the events that log them.

Every change is an event. A command (``set_faith``, ``resolve`` ...) checks the rules
against the current state and returns the event it would log, results included (the faith
lost, the report's outcomes); :func:`apply` folds an event into the state. The service
stores the state that its events fold to, in the same transaction as the event, so the
event log and the state cannot disagree: replaying the log gives the state back
(``replay``; a test does it for every game it plays).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any, Literal

from app.domain.draw import draw_tiles, named_tiles
from app.domain.errors import (
    InvalidInput,
    NotEligible,
    NotFound,
    ReportOutOfOrder,
    ReportResolved,
)
from app.domain.faith import PERIODS, cap_faith, period_info
from app.domain.leaders import LeaderId
from app.domain.names import check_player_name, first_clash
from app.domain.report import Choice, Outcome, ReportPlayer, is_eligible, resolve_report
from app.domain.tiles import Catalogue

ReportStatus = Literal["open", "resolved"]
EventType = Literal[
    "game_created",
    "faith_set",
    "leaders_set",
    "turn_order_set",
    "decision_set",
    "report_resolved",
]


# ---- state ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Excommunication:
    period: int
    tile_id: str


@dataclass(frozen=True, slots=True)
class PlayerState:
    id: str
    name: str
    faith: int
    report_victory_points: int
    leaders: tuple[LeaderId, ...]
    excommunications: tuple[Excommunication, ...] = ()


@dataclass(frozen=True, slots=True)
class Decision:
    player_id: str
    choice: Choice


@dataclass(frozen=True, slots=True)
class ReportState:
    period: int
    status: ReportStatus = "open"
    decisions: tuple[Decision, ...] = ()  # by player id
    outcomes: tuple[Outcome, ...] | None = None
    resolved_at: datetime | None = None

    def choice_of(self, player_id: str) -> Choice | None:
        return next((d.choice for d in self.decisions if d.player_id == player_id), None)


@dataclass(frozen=True, slots=True)
class GameState:
    """One game as its events leave it; ``version`` is the seq of the last event."""

    id: str
    version: int
    seed: int | None
    expansions: tuple[str, ...]
    tile_ids: Mapping[int, str]  # period -> tile id
    players_enter_faith: bool
    players: tuple[PlayerState, ...]  # in seat order: p1, p2, ...
    turn_order: tuple[str, ...]
    reports: tuple[ReportState, ...]

    def player(self, player_id: str) -> PlayerState:
        for player in self.players:
            if player.id == player_id:
                return player
        raise NotFound(f"Game {self.id} has no player {player_id!r}.")

    def report(self, period: int) -> ReportState:
        for report in self.reports:
            if report.period == period:
                return report
        raise NotFound(f"There is no report for period {period}: periods are 1, 2 and 3.")

    def in_turn_order(self) -> tuple[PlayerState, ...]:
        return tuple(self.player(player_id) for player_id in self.turn_order)


@dataclass(frozen=True, slots=True)
class GameEvent:
    """A change to log: its type and its public payload (JSON-ready, as the API serves it)."""

    type: EventType
    data: Mapping[str, Any]


# ---- creation -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewPlayer:
    name: str
    leaders: tuple[LeaderId, ...] = ()


def create_game(
    catalogue: Catalogue,
    players: Sequence[NewPlayer],
    expansions: Sequence[str],
    *,
    seed: int | None,
    tiles: Mapping[int, str] | None,
    players_enter_faith: bool,
    random_seed: int,
) -> GameEvent:
    """The event that starts a game: players p1, p2... in the order given (also the first
    turn order), every report open, and the tiles drawn from ``seed`` (``random_seed``
    when neither a seed nor tiles are given) or named in ``tiles`` (R-DRAW-1..3)."""
    for index, player in enumerate(players):
        check_player_name(player.name, ("players", index, "name"))
        if len(set(player.leaders)) != len(player.leaders):
            raise InvalidInput("a leader is listed twice", loc=("players", index, "leaders"))
    clash = first_clash([player.name for player in players])
    if clash is not None:
        earlier, later = clash
        raise InvalidInput(
            f"player names must be unique and not look alike: {players[later].name!r} reads "
            f"as player {earlier}'s {players[earlier].name!r}",
            loc=("players", later, "name"),
        )
    if len(set(expansions)) != len(expansions):
        raise InvalidInput("an expansion is listed twice", loc=("expansions",))
    if tiles is not None and seed is not None:
        raise InvalidInput("give either a seed or the three tiles, not both", loc=("tiles",))
    if tiles is not None:
        draw = named_tiles(catalogue, tiles, expansions)
    else:
        draw = draw_tiles(catalogue, expansions, random_seed if seed is None else seed)
    return GameEvent(
        "game_created",
        {
            "players": [
                {"id": f"p{seat + 1}", "name": player.name, "leaders": list(player.leaders)}
                for seat, player in enumerate(players)
            ],
            "expansions": list(expansions),
            "seed": draw.seed,
            "tiles": {str(period): tile.id for period, tile in draw.tiles.items()},
            "players_enter_faith": players_enter_faith,
        },
    )


# ---- commands -------------------------------------------------------------------------


# A command returns the event its change logs, or None when the change would leave the
# game as it is (the same faith, the same decision...): nothing to log, the version stays,
# so a client repeating itself spends nothing of the game's budgets.


def set_faith(game: GameState, values: Mapping[str, int]) -> GameEvent | None:
    """R-FT-2: faith above 15 is kept as 15; the event lists the players whose faith
    changes, with how much each lost."""
    changes = []
    for player_id, value in values.items():
        capped = cap_faith(value)
        before = game.player(player_id).faith
        if capped.faith != before:
            changes.append(
                {"player_id": player_id, "from": before, "to": capped.faith, "lost": capped.lost}
            )
    return GameEvent("faith_set", {"changes": changes}) if changes else None


def set_leaders(game: GameState, player_id: str, leaders: Sequence[LeaderId]) -> GameEvent | None:
    if len(set(leaders)) != len(leaders):
        raise InvalidInput("a leader is listed twice", loc=("leaders",))
    before = list(game.player(player_id).leaders)
    if before == list(leaders):
        return None
    return GameEvent("leaders_set", {"player_id": player_id, "from": before, "to": list(leaders)})


def set_turn_order(game: GameState, order: Sequence[str]) -> GameEvent | None:
    """R-REP-3: the order reports handle players in; every player exactly once."""
    ids = sorted(p.id for p in game.players)
    if sorted(order) != ids:
        raise InvalidInput(
            f"the turn order lists every player exactly once: {', '.join(ids)}",
            loc=("turn_order",),
        )
    if tuple(order) == game.turn_order:
        return None
    return GameEvent("turn_order_set", {"from": list(game.turn_order), "to": list(order)})


def set_decision(game: GameState, period: int, player_id: str, choice: Choice) -> GameEvent | None:
    """R-REP-5: an eligible player chooses support or refuse, until resolution."""
    report = game.report(period)
    player = game.player(player_id)
    _check_open_in_order(game, report)
    if not is_eligible(period, player.faith):
        raise NotEligible(
            f"Player {player_id} has faith {player.faith}, below the period {period} "
            f"threshold {period_info(period).threshold}: a short player has no choice "
            "and is excommunicated (R-REP-4, R-REP-5)."
        )
    if report.choice_of(player_id) == choice:
        return None
    return GameEvent("decision_set", {"period": period, "player_id": player_id, "choice": choice})


def resolve(game: GameState, period: int, default_choice: Choice | None) -> GameEvent:
    """R-REP-2..R-REP-10: resolve a report once, in period order; the event carries every
    player's outcome, which ``apply`` gives them all at once."""
    report = game.report(period)
    _check_open_in_order(game, report)
    players = [
        ReportPlayer(p.id, p.faith, frozenset(p.leaders), report.choice_of(p.id))
        for p in game.in_turn_order()
    ]
    result = resolve_report(period, game.tile_ids[period], players, default_choice)
    return GameEvent(
        "report_resolved",
        {
            "period": period,
            "default_choice": default_choice,
            "outcomes": [asdict(outcome) for outcome in result.outcomes],
        },
    )


def _check_open_in_order(game: GameState, report: ReportState) -> None:
    """R-REP-2: reports resolve in period order, each once."""
    if report.status == "resolved":
        raise ReportResolved(f"The period {report.period} report is already resolved.")
    earlier = [r.period for r in game.reports if r.period < report.period and r.status == "open"]
    if earlier:
        raise ReportOutOfOrder(
            f"The period {earlier[0]} report must be resolved before period {report.period}."
        )


# ---- folding events into the state ----------------------------------------------------


def apply(
    game: GameState | None, event: GameEvent, *, game_id: str, seq: int, at: datetime
) -> GameState:
    """The state after ``event``, logged as number ``seq`` at ``at``."""
    data = event.data
    if event.type == "game_created":
        return _created(game_id, seq, data)
    if game is None:
        raise ValueError(f"a {event.type} event needs a game; the first event creates it")
    game = replace(game, version=seq)
    if event.type == "faith_set":
        faith = {change["player_id"]: change["to"] for change in data["changes"]}
        return _players(game, lambda p: replace(p, faith=faith[p.id]) if p.id in faith else p)
    if event.type == "leaders_set":
        leaders = tuple(data["to"])
        return _players(
            game, lambda p: replace(p, leaders=leaders) if p.id == data["player_id"] else p
        )
    if event.type == "turn_order_set":
        return replace(game, turn_order=tuple(data["to"]))
    if event.type == "decision_set":
        decision = Decision(data["player_id"], data["choice"])
        return _report(
            game,
            data["period"],
            lambda r: replace(
                r,
                decisions=tuple(
                    sorted(
                        [*(d for d in r.decisions if d.player_id != decision.player_id), decision],
                        key=lambda d: d.player_id,
                    )
                ),
            ),
        )
    if event.type == "report_resolved":
        period = data["period"]
        outcomes = tuple(Outcome.from_data(o) for o in data["outcomes"])
        by_player = {o.player_id: o for o in outcomes}
        game = _players(game, lambda p: _after_report(p, period, by_player.get(p.id)))
        return _report(
            game,
            period,
            lambda r: replace(r, status="resolved", outcomes=outcomes, resolved_at=at),
        )
    raise ValueError(f"unknown event type {event.type!r}")


def replay(game_id: str, events: Iterable[tuple[int, datetime, GameEvent]]) -> GameState:
    """The state a log of ``(seq, at, event)`` folds to, from the first event."""
    game: GameState | None = None
    for seq, at, event in events:
        game = apply(game, event, game_id=game_id, seq=seq, at=at)
    if game is None:
        raise ValueError(f"game {game_id} has no events")
    return game


def _created(game_id: str, seq: int, data: Mapping[str, Any]) -> GameState:
    players = tuple(
        PlayerState(
            id=p["id"],
            name=p["name"],
            faith=0,
            report_victory_points=0,
            leaders=tuple(p["leaders"]),
        )
        for p in data["players"]
    )
    return GameState(
        id=game_id,
        version=seq,
        seed=data["seed"],
        expansions=tuple(data["expansions"]),
        tile_ids={int(period): tile_id for period, tile_id in data["tiles"].items()},
        players_enter_faith=data["players_enter_faith"],
        players=players,
        turn_order=tuple(p.id for p in players),
        reports=tuple(ReportState(period.number) for period in PERIODS),
    )


def _after_report(player: PlayerState, period: int, outcome: Outcome | None) -> PlayerState:
    if outcome is None:
        return player
    excommunications = player.excommunications
    if outcome.excommunicated and outcome.tile_id is not None:
        excommunications = (*excommunications, Excommunication(period, outcome.tile_id))
    return replace(
        player,
        faith=outcome.faith_after,
        report_victory_points=player.report_victory_points + outcome.victory_points.total,
        excommunications=excommunications,
    )


def _players(game: GameState, change: Callable[[PlayerState], PlayerState]) -> GameState:
    return replace(game, players=tuple(change(p) for p in game.players))


def _report(
    game: GameState, period: int, change: Callable[[ReportState], ReportState]
) -> GameState:
    return replace(
        game, reports=tuple(change(r) if r.period == period else r for r in game.reports)
    )
