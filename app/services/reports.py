"""Use cases on the Vatican Reports of a stored game: read, decide, resolve (R-REP-*)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.domain.errors import NotEligible, ReportOutOfOrder, ReportResolved
from app.domain.faith import period_info
from app.domain.report import Choice, Outcome, ReportPlayer, is_eligible, resolve_report
from app.persistence.models import Excommunication, Game, Report, ReportDecision, utcnow
from app.persistence.views import GameView, ReportView
from app.services.access import Principal
from app.services.store import GameStore, player_of, report_of, turn_order


class ReportService(GameStore):
    def get_report(
        self, game_id: str, period: int, token: str | None
    ) -> tuple[GameView, ReportView]:
        return self._read(game_id, token, lambda s, game, who: (game, report_of(game, period)))

    def set_decision(
        self,
        game_id: str,
        period: int,
        player_id: str,
        choice: Choice,
        token: str | None,
        expected_version: int | None,
    ) -> tuple[Game, Report]:
        """R-REP-5: an eligible player chooses support or refuse, until resolution."""

        def authorize(game: Game, who: Principal) -> None:
            report_of(game, period)
            player_of(game, player_id)
            who.require_host_or_player(player_id, "choose in a report")

        def apply(game: Game, who: Principal) -> tuple[str, dict[str, Any], tuple[Game, Report]]:
            report = report_of(game, period)
            player = player_of(game, player_id)
            _check_open_in_order(game, report)
            if not is_eligible(period, player.faith):
                raise NotEligible(
                    f"Player {player_id} has faith {player.faith}, below the period {period} "
                    f"threshold {period_info(period).threshold}: a short player has no choice "
                    "and is excommunicated (R-REP-4, R-REP-5)."
                )
            now = utcnow()
            existing = next((d for d in report.decisions if d.player_id == player_id), None)
            if existing is None:
                report.decisions.append(
                    ReportDecision(player_id=player_id, choice=choice, updated_at=now)
                )
            else:
                existing.choice = choice
                existing.updated_at = now
            data = {"period": period, "player_id": player_id, "choice": choice}
            return "decision_set", data, (game, report)

        return self._change(game_id, token, expected_version, authorize, apply)

    def resolve(
        self,
        session: Session,
        game_id: str,
        period: int,
        default_choice: Choice | None,
        token: str | None,
        expected_version: int | None,
    ) -> tuple[Game, Report]:
        """R-REP-2..R-REP-10: resolve a report once, in period order, applying every
        outcome to the players atomically. Runs in the caller's (idempotent) transaction."""

        def authorize(game: Game, who: Principal) -> None:
            report_of(game, period)
            who.require_host("resolve a report")

        def apply(game: Game, who: Principal) -> tuple[str, dict[str, Any], tuple[Game, Report]]:
            report = report_of(game, period)
            _check_open_in_order(game, report)
            choices: dict[str, Choice] = {
                d.player_id: "refuse" if d.choice == "refuse" else "support"
                for d in report.decisions
            }
            players = [
                ReportPlayer(p.id, p.faith, frozenset(p.leaders), choices.get(p.id))
                for p in turn_order(game)
            ]
            result = resolve_report(period, game.tile_ids[str(period)], players, default_choice)
            stored = {p.id: p for p in game.players}
            outcomes: list[dict[str, Any]] = []
            for outcome in result.outcomes:
                player = stored[outcome.player_id]
                player.faith = outcome.faith_after
                player.report_victory_points += outcome.victory_points
                if outcome.excommunicated and outcome.tile_id is not None:
                    player.excommunications.append(
                        Excommunication(period=period, tile_id=outcome.tile_id)
                    )
                outcomes.append(outcome_data(outcome))
            report.status = "resolved"
            report.outcomes = outcomes
            report.resolved_at = utcnow()
            data = {"period": period, "default_choice": default_choice, "outcomes": outcomes}
            return "report_resolved", data, (game, report)

        return self._change(game_id, token, expected_version, authorize, apply, session)


def outcome_data(outcome: Outcome) -> dict[str, Any]:
    """An outcome as stored JSON, in the shape of API.md's Outcome."""
    return {
        "player_id": outcome.player_id,
        "faith_before": outcome.faith_before,
        "faith_after": outcome.faith_after,
        "threshold": outcome.threshold,
        "outcome": outcome.outcome,
        "excommunicated": outcome.excommunicated,
        "tile_id": outcome.tile_id,
        "victory_points": {
            "faith": outcome.faith_victory_points,
            "sisto_iv": outcome.sisto_iv_victory_points,
            "total": outcome.victory_points,
        },
        "rules": list(outcome.rules),
        "notes": list(outcome.notes),
    }


def _check_open_in_order(game: Game, report: Report) -> None:
    """R-REP-2: reports resolve in period order, each once."""
    if report.status == "resolved":
        raise ReportResolved(f"The period {report.period} report is already resolved.")
    earlier = [r.period for r in game.reports if r.period < report.period and r.status == "open"]
    if earlier:
        raise ReportOutOfOrder(
            f"The period {earlier[0]} report must be resolved before period {report.period}."
        )
