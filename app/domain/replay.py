"""Folding a stored game's events into its state: :func:`apply` one, :func:`replay` a log.

The service stores the state that its events fold to, in the same transaction as the
event, so the event log and the state cannot disagree: replaying the log gives the state
back (a test does it for every game it plays).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any, cast

from app.domain.events import (
    PLAY_TYPES,
    ChangeRedone,
    ChangeReverted,
    ChangeUndone,
    DecisionSet,
    FaithChanged,
    FaithSet,
    GameCreated,
    GameEvent,
    LeadersSet,
    PlayType,
    ReportResolved,
    RoundAdvanced,
    SeatTokenChanged,
    TurnOrderSet,
    typed,
)
from app.domain.faith import PERIODS
from app.domain.report import Outcome
from app.domain.rounds import FIRST_ROUND, RoundState
from app.domain.state import (
    NO_CHANGES,
    ChangeRef,
    Decision,
    Excommunication,
    GameState,
    PlayerState,
    ReportState,
)


def apply(
    game: GameState | None, event: GameEvent, *, game_id: str, seq: int, at: datetime
) -> GameState:
    """The state after ``event``, logged as number ``seq`` at ``at``."""
    event = typed(event)
    if isinstance(event, GameCreated):
        return _created(game_id, seq, event)
    if game is None:
        raise ValueError(f"a {event.type} event needs a game; the first event creates it")
    # The version and the stack of changes of play (the stamp) go into the one new state
    # that the event's own change makes: a replace() of a whole game is a good part of what
    # folding an event costs, and a write folds one per request. A branch that leaves the
    # stamp out is still right: it is put in after.
    stamp: dict[str, Any] = {"version": seq}
    if event.type in PLAY_TYPES:
        stamp["undoable"] = game.undoable.pushed(ChangeRef(seq, cast(PlayType, event.type)))
        stamp["redoable"] = NO_CHANGES
    folded = _fold(game, event, at, stamp)
    return folded if folded.version == seq else replace(folded, **stamp)


def _fold(game: GameState, event: GameEvent, at: datetime, stamp: dict[str, Any]) -> GameState:
    """The state after ``event``, with ``stamp`` (its version and undo stacks) in it
    where a branch puts it."""
    match event:
        case FaithSet(changes=changes):
            faith = {change.player_id: change.to for change in changes}
            # The event lists only the players whose faith changes: the others stay as
            # they are.
            return _players(
                game,
                lambda p: replace(p, faith=faith[p.id]) if p.id in faith else p,
                **stamp,
            )
        case FaithChanged(player_id=player_id, to=to):
            return _player(game, player_id, lambda p: replace(p, faith=to), **stamp)
        case LeadersSet(player_id=player_id, to=leaders):
            return _player(game, player_id, lambda p: replace(p, leaders=leaders), **stamp)
        case TurnOrderSet(to=order):
            return replace(game, turn_order=order, **stamp)
        case DecisionSet(period=period, player_id=player_id, choice=choice):
            decision = Decision(player_id, choice)
            return _report(
                game,
                period,
                lambda r: replace(
                    r,
                    decisions=_by_player(
                        [*(d for d in r.decisions if d.player_id != player_id), decision]
                    ),
                ),
                **stamp,
            )
        case ReportResolved(period=period, outcomes=outcomes):
            by_player = {o.player_id: o for o in outcomes}
            game = _players(game, lambda p: _after_report(p, period, by_player.get(p.id)), **stamp)
            return _report(
                game,
                period,
                lambda r: replace(r, status="resolved", outcomes=outcomes, resolved_at=at),
            )
        case RoundAdvanced(to=following):
            return replace(game, round=following, **stamp)
        case ChangeUndone() | ChangeRedone():
            return _reverted(replace(game, **stamp), event)
        case SeatTokenChanged():
            # who holds a seat is not part of the game's state
            return replace(game, **stamp)
    raise ValueError(f"unknown event type {event.type!r}")


def replay(game_id: str, events: Iterable[tuple[int, datetime, GameEvent]]) -> GameState:
    """The state a log of ``(seq, at, event)`` folds to, from the first event."""
    game: GameState | None = None
    for seq, at, event in events:
        game = apply(game, event, game_id=game_id, seq=seq, at=at)
    if game is None:
        raise ValueError(f"game {game_id} has no events")
    return game


def _created(game_id: str, seq: int, event: GameCreated) -> GameState:
    players = tuple(
        PlayerState(id=p.id, name=p.name, faith=0, report_victory_points=0, leaders=p.leaders)
        for p in event.players
    )
    return GameState(
        id=game_id,
        version=seq,
        seed=event.seed,
        expansions=event.expansions,
        tile_ids=dict(event.tiles),
        players_enter_faith=event.players_enter_faith,
        players=players,
        turn_order=tuple(p.id for p in players),
        reports=tuple(ReportState(period.number) for period in PERIODS),
        # Logged before rounds were tracked, a creation has no track_rounds: none were.
        round=RoundState(FIRST_ROUND) if event.track_rounds else None,
    )


def _reverted(game: GameState, event: ChangeReverted) -> GameState:
    change = ChangeRef(event.seq, event.change_type)
    if isinstance(event, ChangeUndone):
        if not game.undoable or game.undoable[-1] != change:
            raise ValueError(f"{change} is not the last change of play in effect")
        game = replace(game, undoable=game.undoable[:-1], redoable=game.redoable.pushed(change))
    else:
        if not game.redoable or game.redoable[-1] != change:
            raise ValueError(f"{change} is not the change undone last")
        game = replace(game, redoable=game.redoable[:-1], undoable=game.undoable.pushed(change))
    game = replace(game, players=event.players, turn_order=event.turn_order, round=event.round)
    view = event.report
    if view is None:
        return game
    return _report(
        game,
        view.period,
        lambda r: replace(
            r,
            status=view.status,
            decisions=_by_player(
                Decision(d.player_id, d.choice) for d in view.decisions if d.choice is not None
            ),
            outcomes=view.outcomes,
            resolved_at=view.resolved_at,
        ),
    )


def _by_player(decisions: Iterable[Decision]) -> tuple[Decision, ...]:
    return tuple(sorted(decisions, key=lambda d: d.player_id))


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


def _players(
    game: GameState, change: Callable[[PlayerState], PlayerState], **more: Any
) -> GameState:
    return replace(game, players=tuple(change(p) for p in game.players), **more)


def _player(
    game: GameState, player_id: str, change: Callable[[PlayerState], PlayerState], **more: Any
) -> GameState:
    return _players(game, lambda p: change(p) if p.id == player_id else p, **more)


def _report(
    game: GameState, period: int, change: Callable[[ReportState], ReportState], **more: Any
) -> GameState:
    return replace(
        game, reports=tuple(change(r) if r.period == period else r for r in game.reports), **more
    )
