"""Resolving a Vatican Report (R-REP-1 .. R-REP-10)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.domain.errors import DecisionsPending, InvalidInput
from app.domain.faith import (
    LAST_PERIOD,
    MAX_FAITH,
    SISTO_IV_BONUS,
    cap_faith,
    faith_sent_error,
    faith_victory_points,
    period_info,
)
from app.domain.json_data import from_data
from app.domain.leaders import MARTIN_LUTERO, SISTO_IV

Choice = Literal["support", "refuse"]
OutcomeKind = Literal["supported", "excommunicated", "refused", "spared"]


@dataclass(frozen=True, slots=True)
class ReportPlayer:
    """A player as the report sees them: faith on the track, active leaders, choice."""

    id: str
    faith: int
    leaders: frozenset[str] = frozenset()
    choice: Choice | None = None


@dataclass(frozen=True, slots=True)
class ReportVictoryPoints:
    """The VP a report paid one player: for their faith step (R-FT-1) and Sisto IV (R-REP-8)."""

    faith: int
    sisto_iv: int
    total: int

    @classmethod
    def of(cls, faith: int, sisto_iv: int = 0) -> ReportVictoryPoints:
        return cls(faith=faith, sisto_iv=sisto_iv, total=faith + sisto_iv)


@dataclass(frozen=True, slots=True)
class Outcome:
    """R-REP-10: what the report did to one player and which rules said so.

    Its fields are the public shape of an outcome: the API serves it as it is, and the
    event log stores it as ``dataclasses.asdict`` gives it (read back by ``from_data``).
    """

    player_id: str
    faith_before: int
    faith_after: int
    threshold: int
    outcome: OutcomeKind
    excommunicated: bool
    tile_id: str | None
    victory_points: ReportVictoryPoints
    rules: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Outcome:
        """An outcome from its stored form (``dataclasses.asdict``, through JSON)."""
        outcome: Outcome = from_data(cls, data)
        return outcome


@dataclass(frozen=True, slots=True)
class ReportResult:
    period: int
    threshold: int
    outcomes: tuple[Outcome, ...]


def is_eligible(period: int, faith: int) -> bool:
    """R-REP-5: a player at or above the period's threshold may choose; below, may not."""
    return min(faith, MAX_FAITH) >= period_info(period).threshold


def resolve_report(
    period: int,
    tile_id: str | None,
    players: Sequence[ReportPlayer],
    default_choice: Choice | None = None,
) -> ReportResult:
    """Resolve the report of ``period`` for ``players`` given in turn order.

    Implements R-REP-3 (turn order), R-REP-4 (short), R-REP-5 (support/refuse; a short
    player's choice is ignored), R-REP-6 (last report scores faith after excommunication;
    an eligible player with no choice supports), R-REP-7 (each period on its own),
    R-REP-8 (Sisto IV), R-REP-9 (Martin Lutero), R-REP-10 (per-player outcome) and
    R-FT-2 (faith above 15 counts as 15). ``default_choice`` stands in for any eligible
    player who has not chosen, except in the last report, where such a player supports.
    Raises DecisionsPending naming every eligible player without a choice (outside the
    last report).
    """
    try:
        info = period_info(period)
    except KeyError:
        raise InvalidInput("period must be 1, 2 or 3", loc=("period",)) from None
    seen: set[str] = set()
    for index, player in enumerate(players):
        if player.id in seen:
            raise InvalidInput(
                f"player {player.id!r} is listed twice", loc=("players", index, "id")
            )
        seen.add(player.id)
        refused = faith_sent_error(player.faith)
        if refused is not None:
            raise InvalidInput(refused, loc=("players", index, "faith"))

    last = period == LAST_PERIOD
    pending = [
        p.id
        for p in players
        if is_eligible(period, p.faith) and (p.choice or default_choice) is None and not last
    ]
    if pending:
        raise DecisionsPending(pending)
    outcomes = tuple(
        _resolve_player(info.threshold, last, tile_id, p, default_choice) for p in players
    )
    return ReportResult(period=period, threshold=info.threshold, outcomes=outcomes)


def _resolve_player(
    threshold: int,
    last: bool,
    tile_id: str | None,
    player: ReportPlayer,
    default_choice: Choice | None,
) -> Outcome:
    rules: list[str] = ["R-REP-3"]
    notes: list[str] = []
    capped = cap_faith(player.faith)
    faith = capped.faith
    if capped.lost:
        rules.append("R-FT-2")
        notes.append(f"faith {player.faith} counts as {faith}: faith beyond 15 is lost")

    eligible = faith >= threshold
    if eligible:
        choice: Choice
        if player.choice is not None:
            choice = player.choice
        elif last:
            # R-REP-6: refusing the last report can only cost the player, so one who has not
            # chosen supports, whatever default the table asked for.
            choice = "support"
            rules.append("R-REP-6")
            note = "no choice was made: supports, as refusing the last report can only cost"
            if default_choice == "refuse":
                note += " (the default choice 'refuse' does not apply to the last report)"
            notes.append(note)
        else:
            choice = default_choice or "support"
            rules.append("R-REP-5")
            notes.append(f"no choice was made: the default choice {choice!r} applies")
    else:
        choice = "refuse"  # R-REP-6: a refusal is treated as being short, and vice versa
        rules.append("R-REP-4")
        if player.choice is not None:
            rules.append("R-REP-5")
            notes.append(
                f"faith {faith} is below the threshold {threshold}: the choice "
                f"{player.choice!r} is ignored, a short player has no choice"
            )

    if choice == "support":
        rules.extend(["R-REP-5", "R-FT-1"])
        sisto = 0
        if SISTO_IV in player.leaders:
            rules.append("R-REP-8")
            sisto = SISTO_IV_BONUS
        return Outcome(
            player_id=player.id,
            faith_before=faith,
            faith_after=0,
            threshold=threshold,
            outcome="supported",
            excommunicated=False,
            tile_id=None,
            victory_points=ReportVictoryPoints.of(faith_victory_points(faith), sisto),
            rules=_unique(rules),
            notes=tuple(notes),
        )

    if eligible:
        rules.append("R-REP-5")  # refusing: excommunicated as if short, faith kept
    lutero = MARTIN_LUTERO in player.leaders
    if lutero:
        rules.append("R-REP-9")
        kind: OutcomeKind = "refused" if eligible else "spared"
    else:
        rules.append("R-REP-4")
        kind = "excommunicated"

    faith_vp = 0
    faith_after = faith
    if last:
        # R-REP-6: in the last report the faith VP are still scored and the disc goes to 0
        # (no Sisto IV bonus: this is not supporting the Church, R-REP-8).
        rules.extend(["R-REP-6", "R-FT-1"])
        faith_vp = faith_victory_points(faith)
        faith_after = 0
        if SISTO_IV in player.leaders:
            rules.append("R-REP-8")
            notes.append("Sisto IV pays only for supporting the Church, not for R-REP-6 VP")
    return Outcome(
        player_id=player.id,
        faith_before=faith,
        faith_after=faith_after,
        threshold=threshold,
        outcome=kind,
        excommunicated=not lutero,
        tile_id=None if lutero else tile_id,
        victory_points=ReportVictoryPoints.of(faith_vp),
        rules=_unique(rules),
        notes=tuple(notes),
    )


def _unique(rules: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(rules))
