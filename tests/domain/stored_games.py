"""A stored game played in memory, for the rules of stored games (rounds, Faith changes,
undo and redo): each command's event is folded into the state and kept in a log, as the
service does in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from app.domain import game as rules
from app.domain import history
from app.domain.errors import ServiceError
from app.domain.game import GameEvent, GameState, NewPlayer
from app.domain.tiles import Catalogue
from app.services.tile_packs import load_catalogue

CATALOGUE: Catalogue = load_catalogue()
START = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)


class Table:
    """A game of ``names`` (seed 42: tiles I-6, II-3, III-7) and its log."""

    def __init__(self, *names: str, track_rounds: bool = False) -> None:
        self.log: list[tuple[int, datetime, GameEvent]] = []
        self.reads: list[list[int]] = []  # the seqs each undo or redo read
        event = rules.create_game(
            CATALOGUE,
            [NewPlayer(name) for name in names or ("Anna", "Bruno", "Carla")],
            ["base"],
            seed=42,
            tiles=None,
            players_enter_faith=False,
            random_seed=0,
            track_rounds=track_rounds,
        )
        self.game: GameState = self._log(None, event)

    def _log(self, game: GameState | None, event: GameEvent) -> GameState:
        seq = len(self.log) + 1
        at = START + timedelta(minutes=seq)
        self.log.append((seq, at, event))
        return rules.apply(game, event, game_id="g", seq=seq, at=at)

    def play(self, command: Callable[..., GameEvent | None], *args: Any) -> GameEvent | None:
        """Run ``command(game, *args)`` and fold its event in (None: the game stays as it is,
        nothing is logged)."""
        event = command(self.game, *args)
        if event is not None:
            self.game = self._log(self.game, event)
        return event

    def logged(self, command: Callable[..., GameEvent | None], *args: Any) -> GameEvent:
        """``play``, for a command that must log an event."""
        event = self.play(command, *args)
        assert event is not None, f"{command.__name__}{args} logged nothing"
        return event

    def read(self, seqs: Sequence[int]) -> list[tuple[int, datetime, GameEvent]]:
        """The logged events with these seqs, as the service reads them."""
        wanted = set(seqs)
        self.reads.append(sorted(wanted))
        return [entry for entry in self.log if entry[0] in wanted]

    def undo(self) -> GameEvent:
        return self.logged(history.undo, self.read)

    def redo(self) -> GameEvent:
        return self.logged(history.redo, self.read)

    def replayed(self) -> GameState:
        return rules.replay("g", self.log)


# What each step of tests/support/play_steps.py runs.
PLAYED_BY: dict[str, Any] = {
    "faith": rules.set_faith,
    "delta": rules.change_faith,
    "leaders": rules.set_leaders,
    "turn_order": rules.set_turn_order,
    "decision": rules.set_decision,
    "resolve": rules.resolve,
    "round": rules.advance_round,
}


def played(
    plays: Sequence[tuple[Any, ...]], track_rounds: bool, names: Sequence[str] = ()
) -> tuple[Table, list[tuple[Any, ...]]]:
    """A table of ``names`` (``Table``'s by default) that played ``plays``, each a step of
    tests/support/play_steps.py (those the rules refused, and those that changed
    nothing, left nothing), and the ones that were stored."""
    table = Table(*names, track_rounds=track_rounds)
    stored = []
    for kind, *args in plays:
        try:
            if table.play(PLAYED_BY[kind], *args) is None:
                continue  # a change that changes nothing logs nothing
        except ServiceError:
            continue
        stored.append((kind, *args))
    return table, stored
