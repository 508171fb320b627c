"""How a game's state is stored: the domain's GameState as JSON data in ``games.state``.

The format is versioned (``format``) so that a later change to the state can migrate the
stored rows; format 1 is written by migration 0002 from the tables of 0001 and by every
change since.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from app.domain.game import Decision, Excommunication, GameState, PlayerState, ReportState
from app.domain.report import Outcome

STATE_FORMAT = 1


def state_data(game: GameState) -> dict[str, Any]:
    """The state as JSON-ready data (``id`` and ``version`` are columns of their own)."""
    return {
        "format": STATE_FORMAT,
        "seed": game.seed,
        "expansions": list(game.expansions),
        "tiles": {str(period): tile_id for period, tile_id in sorted(game.tile_ids.items())},
        "players_enter_faith": game.players_enter_faith,
        "players": [asdict(player) for player in game.players],
        "turn_order": list(game.turn_order),
        "reports": [
            {
                "period": report.period,
                "status": report.status,
                "decisions": [asdict(decision) for decision in report.decisions],
                "outcomes": None
                if report.outcomes is None
                else [asdict(outcome) for outcome in report.outcomes],
                "resolved_at": None
                if report.resolved_at is None
                else report.resolved_at.isoformat(),
            }
            for report in game.reports
        ],
    }


def game_state(game_id: str, version: int, data: dict[str, Any]) -> GameState:
    """The state stored as ``data`` (see :func:`state_data`)."""
    if data.get("format") != STATE_FORMAT:
        raise ValueError(f"game {game_id}: unknown state format {data.get('format')!r}")
    return GameState(
        id=game_id,
        version=version,
        seed=data["seed"],
        expansions=tuple(data["expansions"]),
        tile_ids={int(period): tile_id for period, tile_id in data["tiles"].items()},
        players_enter_faith=data["players_enter_faith"],
        players=tuple(
            PlayerState(
                id=p["id"],
                name=p["name"],
                faith=p["faith"],
                report_victory_points=p["report_victory_points"],
                leaders=tuple(p["leaders"]),
                excommunications=tuple(
                    Excommunication(e["period"], e["tile_id"]) for e in p["excommunications"]
                ),
            )
            for p in data["players"]
        ),
        turn_order=tuple(data["turn_order"]),
        reports=tuple(
            ReportState(
                period=r["period"],
                status=r["status"],
                decisions=tuple(Decision(d["player_id"], d["choice"]) for d in r["decisions"]),
                outcomes=None
                if r["outcomes"] is None
                else tuple(Outcome.from_data(o) for o in r["outcomes"]),
                resolved_at=None
                if r["resolved_at"] is None
                else datetime.fromisoformat(r["resolved_at"]),
            )
            for r in data["reports"]
        ),
    )
