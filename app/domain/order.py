"""Placement order within a round under II-7 (R-ORD-1)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.effects import SkipFirstTurn
from app.domain.errors import InvalidInput
from app.domain.tiles import Tile

DEFAULT_FAMILY_MEMBERS = 4


@dataclass(frozen=True, slots=True)
class OrderPlayer:
    id: str
    tiles: tuple[Tile, ...] = ()
    family_members: int = DEFAULT_FAMILY_MEMBERS

    def with_tiles(self, tiles: tuple[Tile, ...]) -> OrderPlayer:
        """The same player holding ``tiles`` (as :meth:`ScoringPlayer.with_tiles`)."""
        return OrderPlayer(self.id, tiles, self.family_members)


@dataclass(frozen=True, slots=True)
class Placement:
    player_id: str
    member: int  # 1 for the player's first member placed this round, 2 for the second...


def _skips_first_turn(player: OrderPlayer) -> bool:
    """The one function for the skip_first_turn kind."""
    return any(isinstance(t.effect, SkipFirstTurn) for t in player.tiles)


def placement_order(players: Sequence[OrderPlayer]) -> list[Placement]:
    """R-ORD-1: players place one member per turn in turn order; one with II-7 skips the
    first turn and places their last member after everyone else has placed all of theirs,
    such players in turn order."""
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise InvalidInput("a player is listed twice", loc=("players",))
    for index, player in enumerate(players):
        if player.family_members < 0:
            raise InvalidInput(
                "family_members cannot be negative", loc=("players", index, "family_members")
            )
    skipping = {p.id for p in players if _skips_first_turn(p)}
    placed = {p.id: 0 for p in players}
    # Members placed in the ordinary turns: all for most players, all but the last for
    # players who skip (their last one comes at the very end).
    in_turns = {
        p.id: p.family_members - 1
        if p.id in skipping and p.family_members > 0
        else p.family_members
        for p in players
    }
    order: list[Placement] = []
    turn = 0
    while any(placed[p.id] < in_turns[p.id] for p in players):
        turn += 1
        for player in players:
            if turn == 1 and player.id in skipping:
                continue
            if placed[player.id] < in_turns[player.id]:
                placed[player.id] += 1
                order.append(Placement(player.id, placed[player.id]))
    for player in players:
        if player.id in skipping and player.family_members > 0:
            order.append(Placement(player.id, player.family_members))
    return order
