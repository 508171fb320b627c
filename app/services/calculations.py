"""The rule calculations, one function each, for the stateless routes and stored games alike:
tile ids are resolved against the catalogue here, then the rules are called."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from app.domain.actions import ActionRequest, ActionValue, action_value
from app.domain.errors import DecisionsPending, InvalidInput
from app.domain.gains import Gain, GainsResult, apply_gains, check_one_tile_per_period
from app.domain.order import OrderPlayer, Placement, placement_order
from app.domain.report import Choice, ReportPlayer, ReportResult, resolve_report
from app.domain.scoring import PlayerScore, ScoringPlayer, final_scores
from app.domain.tiles import Catalogue, Tile

P = TypeVar("P", ScoringPlayer, OrderPlayer)
Loc = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Holding(Generic[P]):
    """A player as a calculation takes them, with the ids of the tiles they hold."""

    player: P
    excommunications: Sequence[str] = ()


class Calculations:
    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue

    def tiles(self, tile_ids: Sequence[str], loc: Loc) -> tuple[Tile, ...]:
        """The tiles a player holds: known ids, one per period (R-REP-7); errors at ``loc``."""
        tiles = tuple(
            self.catalogue.require(tile_id, loc=(*loc, index))
            for index, tile_id in enumerate(tile_ids)
        )
        check_one_tile_per_period(tiles, loc)
        return tiles

    def vatican_report(
        self,
        period: int,
        tile_id: str | None,
        players: Sequence[ReportPlayer],
        default_choice: Choice | None,
    ) -> ReportResult:
        """R-REP-*: a report for players in turn order. The request must be complete: an
        eligible player without a choice is a 422 here (a stored game waits instead)."""
        if tile_id is not None:
            tile = self.catalogue.require(tile_id, loc=("tile_id",))
            if tile.period != period:
                raise InvalidInput(
                    f"tile {tile.id} is a period {tile.period} tile", loc=("tile_id",)
                )
        try:
            return resolve_report(period, tile_id, players, default_choice)
        except DecisionsPending as pending:
            first = next(i for i, p in enumerate(players) if p.id in pending.pending)
            raise InvalidInput(
                pending.detail, loc=("players", first, "choice"), pending=pending.pending
            ) from None

    def gains(
        self, tile_ids: Sequence[str], leaders: Sequence[str], gains: Sequence[Gain]
    ) -> GainsResult:
        """R-GAIN-*: what each gain really delivers, step by step."""
        return apply_gains(self.tiles(tile_ids, ("excommunications",)), frozenset(leaders), gains)

    def action_value(self, tile_ids: Sequence[str], request: ActionRequest) -> ActionValue:
        """R-ACT-*: an action's final value, whether it is allowed and reaches a value."""
        return action_value(self.tiles(tile_ids, ("excommunications",)), request)

    def placement_order(self, players: Sequence[Holding[OrderPlayer]]) -> list[Placement]:
        """R-ORD-1: the order members are placed in a round, players in turn order."""
        return placement_order(self._with_tiles(players))

    def final_scores(self, players: Sequence[Holding[ScoringPlayer]]) -> list[PlayerScore]:
        """R-END-*: every player's final score with every part listed."""
        return final_scores(self._with_tiles(players))

    def _with_tiles(self, players: Sequence[Holding[P]]) -> list[P]:
        return [
            held.player.with_tiles(
                self.tiles(held.excommunications, ("players", index, "excommunications"))
            )
            for index, held in enumerate(players)
        ]
