"""The changes a table makes to a stored game: each command checks the rules against the
current state and returns the event it would log, results included (the faith lost, the
report's outcomes). The service logs it and folds it into the state (``replay.py``).

A command returns None when the change would leave the game as it is (the same faith,
the same decision...): nothing to log, the version stays, so a client repeating itself
spends nothing of the game's budgets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.domain.draw import draw_tiles, named_tiles
from app.domain.errors import (
    InvalidInput,
    NotEligible,
    NotInReportPhase,
    ReportOutOfOrder,
    ReportResolved,
    RoundsNotTracked,
)
from app.domain.events import (
    CreatedPlayer,
    DecisionSet,
    FaithChange,
    FaithChanged,
    FaithSet,
    GameCreated,
    LeadersSet,
    RoundAdvanced,
    SeatTokenChange,
    SeatTokenChanged,
    TurnOrderSet,
)
from app.domain.events import (
    ReportResolved as ReportResolvedEvent,
)
from app.domain.faith import MAX_FAITH, add_faith, cap_faith, faith_sent_error, period_info
from app.domain.leaders import LeaderId, check_leaders
from app.domain.names import check_player_name, first_clash
from app.domain.players import check_seats
from app.domain.report import Choice, ReportPlayer, is_eligible, resolve_report
from app.domain.rounds import in_report_phase, next_round
from app.domain.state import GameState, ReportState
from app.domain.tiles import Catalogue

#: The seat of the host token, beside the players' seats (their ids).
HOST_SEAT = "host"
#: A Faith change a client may send at once: more than the whole track either way is
#: never a table's move.
MAX_FAITH_DELTA = MAX_FAITH


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
) -> GameCreated:
    """The event that starts a game of 2 to 5 players (R-PLY-1), each holding each leader
    at most once (R-PLY-2): players p1, p2... in the order given (also the first
    turn order), every report open, and the tiles drawn from ``seed`` (``random_seed``
    when neither a seed nor tiles are given) or named in ``tiles`` (R-DRAW-1..3); with
    ``track_rounds``, at round 1 (R-RND-1)."""
    check_seats(len(players), expansions)
    for index, player in enumerate(players):
        check_player_name(player.name, ("players", index, "name"))
        check_leaders(player.leaders, ("players", index, "leaders"))
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
    return GameCreated(
        players=tuple(
            CreatedPlayer(f"p{seat + 1}", player.name, tuple(player.leaders))
            for seat, player in enumerate(players)
        ),
        expansions=tuple(expansions),
        seed=draw.seed,
        tiles={period: tile.id for period, tile in draw.tiles.items()},
        players_enter_faith=players_enter_faith,
        track_rounds=track_rounds,
    )


def set_faith(game: GameState, values: Mapping[str, int]) -> FaithSet | None:
    """R-FT-2, R-FT-4: faith above 15 is kept as 15; the event lists the players whose faith
    changes, with how much each lost."""
    changes = []
    for player_id, value in values.items():
        refused = faith_sent_error(value)
        if refused is not None:
            raise InvalidInput(refused, loc=("faith", player_id))
        capped = cap_faith(value)
        before = game.player(player_id).faith
        if capped.faith != before:
            changes.append(FaithChange(player_id, before, capped.faith, capped.lost))
    return FaithSet(tuple(changes)) if changes else None


def change_faith(game: GameState, player_id: str, delta: int) -> FaithChanged | None:
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
    return FaithChanged(player_id, delta, before, after.faith, after.lost)


def set_leaders(game: GameState, player_id: str, leaders: Sequence[LeaderId]) -> LeadersSet | None:
    """R-PLY-2: the player's leaders, each at most once."""
    check_leaders(leaders, ("leaders",))
    before = game.player(player_id).leaders
    if before == tuple(leaders):
        return None
    return LeadersSet(player_id, before, tuple(leaders))


def set_turn_order(game: GameState, order: Sequence[str]) -> TurnOrderSet | None:
    """R-REP-3: the order reports handle players in; every player exactly once."""
    ids = sorted(p.id for p in game.players)
    if sorted(order) != ids:
        raise InvalidInput(
            f"the turn order lists every player exactly once: {', '.join(ids)}",
            loc=("turn_order",),
        )
    if tuple(order) == game.turn_order:
        return None
    return TurnOrderSet(game.turn_order, tuple(order))


def set_decision(
    game: GameState, period: int, player_id: str, choice: Choice
) -> DecisionSet | None:
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
    return DecisionSet(period, player_id, choice)


def resolve(game: GameState, period: int, default_choice: Choice | None) -> ReportResolvedEvent:
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
    return ReportResolvedEvent(period, default_choice, result.outcomes)


def advance_round(game: GameState) -> RoundAdvanced:
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
    return RoundAdvanced(current, next_round(current, report_open))


def change_seat_token(game: GameState, seat: str, change: SeatTokenChange) -> SeatTokenChanged:
    """The fact that a seat's token was replaced or revoked; never the token itself."""
    if seat != HOST_SEAT:
        game.player(seat)
    elif change == "revoked":
        raise InvalidInput(
            "the host seat always has a token: issue it a new one instead of revoking it",
            loc=("path", "seat"),
        )
    return SeatTokenChanged(seat, change)


def _check_open_in_order(game: GameState, report: ReportState) -> None:
    """R-REP-2: reports resolve in period order, each once."""
    if report.status == "resolved":
        raise ReportResolved(f"The period {report.period} report is already resolved.")
    earlier = [r.period for r in game.reports if r.period < report.period and r.status == "open"]
    if earlier:
        raise ReportOutOfOrder(
            f"The period {earlier[0]} report must be resolved before period {report.period}."
        )
