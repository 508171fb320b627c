"""Final scoring with the period III tiles (R-END-1 .. R-END-4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.domain.effects import CardType, NoEndScoring, VpLossPerCount, VpLossPerVp
from app.domain.errors import InvalidInput
from app.domain.resources import BOARD_RESOURCES
from app.domain.tiles import Tile

# R-END-1: VP by number of cards (index = count; more than 6 cannot be held).
TERRITORY_VP: tuple[int, ...] = (0, 0, 0, 1, 4, 10, 20)
CHARACTER_VP: tuple[int, ...] = (0, 1, 3, 6, 10, 15, 21)
MILITARY_FIRST_VP = 5
MILITARY_SECOND_VP = 2
RESOURCES_PER_VP = 5
MAX_CARDS_OF_A_TYPE = 6
COUNTS: tuple[str, ...] = (
    "victory_points",
    "military_points",
    "territories",
    "characters",
    "venture_points",
)


@dataclass(frozen=True, slots=True)
class ScoringPlayer:
    id: str
    tiles: tuple[Tile, ...] = ()
    victory_points: int = 0
    military_points: int = 0
    territories: int = 0
    characters: int = 0
    venture_points: int = 0
    resources: Mapping[str, int] = field(default_factory=dict)
    building_costs: Mapping[str, int] = field(default_factory=dict)

    def with_tiles(self, tiles: tuple[Tile, ...]) -> ScoringPlayer:
        """The same player holding ``tiles``. Built field by field: ``dataclasses.replace``
        costs about three constructions, once per player of every final-scores request
        (a unit test checks no field is left behind)."""
        return ScoringPlayer(
            self.id,
            tiles,
            self.victory_points,
            self.military_points,
            self.territories,
            self.characters,
            self.venture_points,
            self.resources,
            self.building_costs,
        )


#: What a line of a final score counts (R-END-1..R-END-4).
ScorePartName = Literal[
    "victory_points",
    "territories",
    "characters",
    "ventures",
    "military",
    "resources",
    "vp_loss_per_vp",
    "vp_loss_per_count",
    "floor",
]


@dataclass(frozen=True, slots=True)
class ScorePart:
    # Built positionally in this module: keywords cost a quarter more, on some 26 parts
    # of every final-scores request.
    rule: str
    part: ScorePartName
    change: int
    by: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerScore:
    player_id: str
    parts: tuple[ScorePart, ...]
    total: int


def final_scores(players: Sequence[ScoringPlayer]) -> list[PlayerScore]:
    """Score every player: track VP less III-4 (R-END-2), cards, military and resources
    (R-END-1) unless a tile says a type scores nothing (R-END-3), the per-count losses of
    III-5/6/7 (R-END-3), never below 0 (R-END-4). Every part is listed."""
    _check(players)
    military = _military_awards(players)
    return [_score(player, military[player.id]) for player in players]


def _check(players: Sequence[ScoringPlayer]) -> None:
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise InvalidInput("a player is listed twice", loc=("players",))
    for index, p in enumerate(players):
        # Negative counts are invalid input (API.md): a negative card count would index the
        # VP tables from the end, and negative VP would turn III-4 into a gain.
        for name in COUNTS:
            if getattr(p, name) < 0:
                raise InvalidInput(f"{name} cannot be negative", loc=("players", index, name))
        for group in ("resources", "building_costs"):
            for key, amount in getattr(p, group).items():
                if amount < 0:
                    raise InvalidInput(
                        f"{group}.{key} cannot be negative", loc=("players", index, group, key)
                    )
        for name in ("territories", "characters"):
            if getattr(p, name) > MAX_CARDS_OF_A_TYPE:
                raise InvalidInput(
                    f"a player holds at most {MAX_CARDS_OF_A_TYPE} {name}",
                    loc=("players", index, name),
                )


def _military_awards(players: Sequence[ScoringPlayer]) -> dict[str, int]:
    """R-END-1: most military points 5 VP, second 2 VP; all tied for first get 5 and no
    second is paid; all tied for second get 2; 0 military points gets neither."""
    awards = {p.id: 0 for p in players}
    levels = sorted({p.military_points for p in players if p.military_points > 0}, reverse=True)
    if not levels:
        return awards
    first = [p for p in players if p.military_points == levels[0]]
    for p in first:
        awards[p.id] = MILITARY_FIRST_VP
    if len(first) == 1 and len(levels) > 1:
        for p in players:
            if p.military_points == levels[1]:
                awards[p.id] = MILITARY_SECOND_VP
    return awards


def _count(player: ScoringPlayer, countable: str) -> int:
    if countable == "military_points":
        return player.military_points
    group, _, key = countable.partition(".")
    source = player.building_costs if group == "building_costs" else player.resources
    return source.get(key, 0)


def _score(player: ScoringPlayer, military_award: int) -> PlayerScore:
    parts: list[ScorePart] = [ScorePart("R-END-1", "victory_points", player.victory_points)]
    effects = [(t.id, t.effect) for t in player.tiles]

    # R-END-2: before final scoring, on the VP already on the track.
    for tile_id, effect in effects:
        if isinstance(effect, VpLossPerVp):
            parts.append(_vp_loss_per_vp(tile_id, effect, player.victory_points))

    blocked = {e.card_type: tile_id for tile_id, e in effects if isinstance(e, NoEndScoring)}
    card_parts: tuple[tuple[CardType, int, str], ...] = (
        ("territories", TERRITORY_VP[player.territories], f"{player.territories} territories"),
        ("characters", CHARACTER_VP[player.characters], f"{player.characters} characters"),
        ("ventures", player.venture_points, "printed VP of the ventures"),
    )
    for card_type, value, note in card_parts:
        if card_type in blocked:
            parts.append(_no_end_scoring(blocked[card_type], card_type, note))
        else:
            parts.append(ScorePart("R-END-1", card_type, value, None, note))

    military = f"{player.military_points} military points"
    parts.append(ScorePart("R-END-1", "military", military_award, None, military))
    board = sum(player.resources.get(k, 0) for k in BOARD_RESOURCES)
    resources = f"{board} resources, 1 VP per 5"
    parts.append(ScorePart("R-END-1", "resources", board // RESOURCES_PER_VP, None, resources))
    for tile_id, effect in effects:
        if isinstance(effect, VpLossPerCount):
            parts.append(_vp_loss_per_count(tile_id, effect, player))

    total = sum(part.change for part in parts)
    if total < 0:
        parts.append(ScorePart("R-END-4", "floor", -total, None, "a total never goes below 0"))
        total = 0
    return PlayerScore(player.id, tuple(parts), total)


def _vp_loss_per_vp(tile_id: str, effect: VpLossPerVp, victory_points: int) -> ScorePart:
    loss = (victory_points // effect.per) * effect.amount
    return ScorePart(
        "R-END-2", "vp_loss_per_vp", -loss, tile_id, f"{victory_points} VP: 1 per {effect.per}"
    )


def _no_end_scoring(tile_id: str, card_type: CardType, note: str) -> ScorePart:
    return ScorePart("R-END-3", card_type, 0, tile_id, f"{note} score nothing")


def _vp_loss_per_count(tile_id: str, effect: VpLossPerCount, player: ScoringPlayer) -> ScorePart:
    counted = sum(_count(player, c) for c in effect.counts)
    loss = (counted // effect.per) * effect.amount
    return ScorePart(
        "R-END-3",
        "vp_loss_per_count",
        -loss,
        tile_id,
        f"{counted} counted: {', '.join(effect.counts)}",
    )
