"""A stored game: its state, the changes a table makes to it, and the events that log them.

Every change is an event. A command (``set_faith``, ``resolve`` ...) checks the rules
against the current state and returns the event it would log, results included (the faith
lost, the report's outcomes); :func:`apply` folds an event into the state. The service
stores the state that its events fold to, in the same transaction as the event, so the
event log and the state cannot disagree: replaying the log gives the state back
(``replay``; a test does it for every game it plays).

The changes of play (:data:`PLAY_TYPES`) can be undone and redone (``history.py``): the
state keeps the stack of those in effect and of those undone, and the events that undo
and redo carry the values they leave, which ``apply`` puts in place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal

from app.domain.draw import draw_tiles, named_tiles
from app.domain.errors import (
    InvalidInput,
    NotEligible,
    NotFound,
    NotInReportPhase,
    ReportOutOfOrder,
    ReportResolved,
    RoundsNotTracked,
)
from app.domain.faith import MAX_FAITH, PERIODS, add_faith, cap_faith, period_info
from app.domain.leaders import LeaderId
from app.domain.names import check_player_name, first_clash
from app.domain.report import Choice, Outcome, ReportPlayer, is_eligible, resolve_report
from app.domain.rounds import FIRST_ROUND, RoundState, in_report_phase, next_round
from app.domain.tiles import Catalogue

ReportStatus = Literal["open", "resolved"]
EventType = Literal[
    "game_created",
    "faith_set",
    "faith_changed",
    "leaders_set",
    "turn_order_set",
    "decision_set",
    "report_resolved",
    "round_advanced",
    "change_undone",
    "change_redone",
    "seat_token_changed",
]
#: The changes of play: what an undo reverts and a redo applies again (R-UNDO-1). The
#: creation, the seats' token changes and the undos and redos themselves are not.
PLAY_TYPES: frozenset[str] = frozenset(
    {
        "faith_set",
        "faith_changed",
        "leaders_set",
        "turn_order_set",
        "decision_set",
        "report_resolved",
        "round_advanced",
    }
)
#: The seat of the host token, beside the players' seats (their ids).
HOST_SEAT = "host"
SeatTokenChange = Literal["reissued", "revoked", "recovered"]
#: A Faith change a client may send at once: more than the whole track either way is
#: never a table's move.
MAX_FAITH_DELTA = MAX_FAITH


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
class ChangeRef:
    """A logged change of play, by its seq and type."""

    seq: int
    type: EventType


@dataclass(frozen=True, slots=True)
class GameState:
    """One game as its events leave it; ``version`` is the seq of the last event.

    ``undoable`` lists the changes of play in effect, oldest first (the last is what an
    undo reverts); ``redoable`` the changes undone since the last change of play, the
    most recently undone last (what a redo applies again)."""

    id: str
    version: int
    seed: int | None
    expansions: tuple[str, ...]
    tile_ids: Mapping[int, str]  # period -> tile id
    players_enter_faith: bool
    players: tuple[PlayerState, ...]  # in seat order: p1, p2, ...
    turn_order: tuple[str, ...]
    reports: tuple[ReportState, ...]
    round: RoundState | None = None  # None: the game does not track rounds
    undoable: tuple[ChangeRef, ...] = ()
    redoable: tuple[ChangeRef, ...] = ()

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
    track_rounds: bool = False,
) -> GameEvent:
    """The event that starts a game: players p1, p2... in the order given (also the first
    turn order), every report open, and the tiles drawn from ``seed`` (``random_seed``
    when neither a seed nor tiles are given) or named in ``tiles`` (R-DRAW-1..3); with
    ``track_rounds``, at round 1 (R-RND-1)."""
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
            "track_rounds": track_rounds,
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


def change_faith(game: GameState, player_id: str, delta: int) -> GameEvent | None:
    """R-FT-3: add ``delta`` to the player's faith; above 15 is lost (R-FT-2), and a
    removal stops at 0. The event says what was asked, what is kept and what was lost;
    None when the faith stays as it is (a gain at 15, a removal at 0)."""
    if delta == 0 or abs(delta) > MAX_FAITH_DELTA:
        raise InvalidInput(
            f"a faith change is -{MAX_FAITH_DELTA}..{MAX_FAITH_DELTA}, not 0", loc=("delta",)
        )
    before = game.player(player_id).faith
    after = add_faith(before, delta)
    if after.faith == before:
        return None
    return GameEvent(
        "faith_changed",
        {
            "player_id": player_id,
            "delta": delta,
            "from": before,
            "to": after.faith,
            "lost": after.lost,
        },
    )


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
    if game.round is not None and not in_report_phase(game.round, period):
        raise NotInReportPhase(
            f"The period {period} report resolves in the report phase of round "
            f"{period_info(period).report_round}; the game is in round {game.round.number}"
            + (" (its report phase)." if game.round.phase == "report" else ".")
            + " Advance the round first (R-RND-2)."
        )
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


def advance_round(game: GameState) -> GameEvent:
    """R-RND-1, R-RND-3, R-RND-4: the next round or report phase, in a game that tracks
    its rounds."""
    if game.round is None:
        raise RoundsNotTracked(
            f"Game {game.id} was created without track_rounds: it has no round to advance."
        )
    current = game.round
    report_open = current.phase == "report" and any(
        r.status == "open" and period_info(r.period).report_round == current.number
        for r in game.reports
    )
    following = next_round(current, report_open)
    return GameEvent("round_advanced", {"from": _round_data(current), "to": _round_data(following)})


def change_seat_token(game: GameState, seat: str, change: SeatTokenChange) -> GameEvent:
    """The fact that a seat's token was replaced or revoked; never the token itself."""
    if seat != HOST_SEAT:
        game.player(seat)
    elif change == "revoked":
        raise InvalidInput(
            "the host seat always has a token: issue it a new one instead of revoking it",
            loc=("path", "seat"),
        )
    return GameEvent("seat_token_changed", {"seat": seat, "change": change})


def closed_seat(event_type: str, data: Mapping[str, Any]) -> str | None:
    """The seat whose token a logged event replaced or revoked: the token its holder had
    stops working there."""
    return str(data["seat"]) if event_type == "seat_token_changed" else None


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
    if event.type in PLAY_TYPES:
        game = replace(game, undoable=(*game.undoable, ChangeRef(seq, event.type)), redoable=())
    if event.type == "faith_set":
        faith = {change["player_id"]: change["to"] for change in data["changes"]}
        return _players(game, lambda p: replace(p, faith=faith[p.id]) if p.id in faith else p)
    if event.type == "faith_changed":
        return _players(
            game, lambda p: replace(p, faith=data["to"]) if p.id == data["player_id"] else p
        )
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
    if event.type == "round_advanced":
        return replace(game, round=_round_from(data["to"]))
    if event.type in ("change_undone", "change_redone"):
        return _reverted(game, event)
    if event.type == "seat_token_changed":
        return game  # who holds a seat is not part of the game's state
    raise ValueError(f"unknown event type {event.type!r}")


def reverted(change: ChangeRef, logged: GameEvent, state: GameState, *, undone: bool) -> GameEvent:
    """The event that undoes (or redoes) ``change``, logged as ``logged``, leaving the
    game's values as ``state`` has them (R-UNDO-1..3): every player and the turn order,
    the report the change touched and the round, as clients read them, so that ``apply``
    (and a client) puts them in place without reading anything else."""
    period = logged.data["period"] if change.type in ("decision_set", "report_resolved") else None
    return GameEvent(
        "change_undone" if undone else "change_redone",
        {
            "seq": change.seq,
            "type": change.type,
            "players": [player_data(p) for p in state.players],
            "turn_order": list(state.turn_order),
            "report": None if period is None else _report_data(report_view(state, period)),
            "round": None if state.round is None else _round_data(state.round),
        },
    )


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
        # Logged before rounds were tracked, a creation has no track_rounds: none were.
        round=RoundState(FIRST_ROUND) if data.get("track_rounds") else None,
    )


def _reverted(game: GameState, event: GameEvent) -> GameState:
    data = event.data
    change = ChangeRef(data["seq"], data["type"])
    if event.type == "change_undone":
        if game.undoable[-1:] != (change,):
            raise ValueError(f"{change} is not the last change of play in effect")
        game = replace(game, undoable=game.undoable[:-1], redoable=(*game.redoable, change))
    else:
        if game.redoable[-1:] != (change,):
            raise ValueError(f"{change} is not the change undone last")
        game = replace(game, redoable=game.redoable[:-1], undoable=(*game.undoable, change))
    game = replace(
        game,
        players=tuple(player_from_data(p) for p in data["players"]),
        turn_order=tuple(data["turn_order"]),
        round=None if data["round"] is None else _round_from(data["round"]),
    )
    report = data["report"]
    if report is None:
        return game
    return _report(
        game,
        report["period"],
        lambda r: replace(
            r,
            status=report["status"],
            decisions=tuple(
                sorted(
                    (
                        Decision(d["player_id"], d["choice"])
                        for d in report["decisions"]
                        if d["choice"] is not None
                    ),
                    key=lambda d: d.player_id,
                )
            ),
            outcomes=None
            if report["outcomes"] is None
            else tuple(Outcome.from_data(o) for o in report["outcomes"]),
            resolved_at=None
            if report["resolved_at"] is None
            else datetime.fromisoformat(report["resolved_at"]),
        ),
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


# ---- what clients read of a game --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DecisionView:
    player_id: str
    eligible: bool
    choice: Choice | None


@dataclass(frozen=True, slots=True)
class ReportView:
    """A report as clients read it (the API's Report document)."""

    period: int
    round: int
    threshold: int
    status: ReportStatus
    tile_id: str
    decisions: tuple[DecisionView, ...]  # in turn order
    outcomes: tuple[Outcome, ...] | None
    resolved_at: datetime | None


def report_view(game: GameState, period: int) -> ReportView:
    """R-REP-5: who may choose in the report of ``period``, who chose what, and once it is
    resolved what it did; eligibility as it was when it was resolved (the outcomes keep
    the faith before)."""
    report = game.report(period)
    info = period_info(period)
    faith_before = {o.player_id: o.faith_before for o in report.outcomes or ()}
    return ReportView(
        period=period,
        round=info.report_round,
        threshold=info.threshold,
        status=report.status,
        tile_id=game.tile_ids[period],
        decisions=tuple(
            DecisionView(
                p.id,
                is_eligible(period, faith_before.get(p.id, p.faith)),
                report.choice_of(p.id),
            )
            for p in game.in_turn_order()
        ),
        outcomes=report.outcomes,
        resolved_at=report.resolved_at,
    )


def player_data(player: PlayerState) -> dict[str, Any]:
    """A player as JSON-ready data, as clients read it (the stored state keeps it so too)."""
    return {
        "id": player.id,
        "name": player.name,
        "faith": player.faith,
        "report_victory_points": player.report_victory_points,
        "leaders": list(player.leaders),
        "excommunications": [
            {"period": e.period, "tile_id": e.tile_id} for e in player.excommunications
        ],
    }


def player_from_data(data: Mapping[str, Any]) -> PlayerState:
    """The player :func:`player_data` gave."""
    return PlayerState(
        id=data["id"],
        name=data["name"],
        faith=data["faith"],
        report_victory_points=data["report_victory_points"],
        leaders=tuple(data["leaders"]),
        excommunications=tuple(
            Excommunication(e["period"], e["tile_id"]) for e in data["excommunications"]
        ),
    )


def timestamp(at: datetime) -> str:
    """A UTC time as the API writes it (RFC 3339, ``Z``): what the event logs carry."""
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _report_data(view: ReportView) -> dict[str, Any]:
    return {
        "period": view.period,
        "round": view.round,
        "threshold": view.threshold,
        "status": view.status,
        "tile_id": view.tile_id,
        "decisions": [asdict(d) for d in view.decisions],
        "outcomes": None if view.outcomes is None else [asdict(o) for o in view.outcomes],
        "resolved_at": None if view.resolved_at is None else timestamp(view.resolved_at),
    }


def _round_data(round_: RoundState) -> dict[str, Any]:
    return {"number": round_.number, "phase": round_.phase}


def _round_from(data: Mapping[str, Any]) -> RoundState:
    return RoundState(data["number"], data["phase"])
