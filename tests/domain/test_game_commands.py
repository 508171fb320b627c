"""The stored game's commands (app/domain/commands.py): a command that would leave the game as
it is returns no event, so nothing is logged and the version stays."""

from __future__ import annotations

from datetime import UTC, datetime

from app.domain import game as rules
from app.domain.game import GameState, NewPlayer, apply
from app.services.tile_packs import load_catalogue

AT = datetime(2026, 3, 1, 20, 15, tzinfo=UTC)


def _game() -> GameState:
    event = rules.create_game(
        load_catalogue(None),
        [NewPlayer("Anna", ("sisto_iv",)), NewPlayer("Bruno")],
        ["base"],
        seed=42,
        tiles=None,
        players_enter_faith=False,
        random_seed=0,
    )
    game = apply(None, event, game_id="g", seq=1, at=AT)
    faith = rules.set_faith(game, {"p1": 5, "p2": 20})
    assert faith is not None
    return apply(game, faith, game_id="g", seq=2, at=AT)


def test_the_same_faith_again_is_no_event_and_a_changed_one_lists_only_what_moves() -> None:
    game = _game()
    assert rules.set_faith(game, {"p1": 5}) is None
    assert rules.set_faith(game, {"p2": 99}) is None  # kept at 15 either way
    event = rules.set_faith(game, {"p1": 5, "p2": 3})
    assert event is not None
    assert event.data["changes"] == [{"player_id": "p2", "from": 15, "to": 3, "lost": 0}]


def test_the_same_leaders_turn_order_or_decision_again_is_no_event() -> None:
    game = _game()
    assert rules.set_leaders(game, "p1", ["sisto_iv"]) is None
    assert rules.set_leaders(game, "p1", []) is not None
    assert rules.set_turn_order(game, ["p1", "p2"]) is None
    assert rules.set_turn_order(game, ["p2", "p1"]) is not None
    decided = rules.set_decision(game, 1, "p1", "support")
    assert decided is not None
    game = apply(game, decided, game_id="g", seq=3, at=AT)
    assert rules.set_decision(game, 1, "p1", "support") is None
    assert rules.set_decision(game, 1, "p1", "refuse") is not None
