"""How a game's state is stored: the domain's GameState as JSON data in ``games.state``.

The format is versioned (``format``) so that a later change to the state can migrate the
stored rows: format 1 was written by migration 0002 from the tables of 0001; format 2
adds the round (null unless the game tracks rounds) and the stacks of changes that an
undo and a redo would take, and migration 0005 rewrites every format 1 row as format 2.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain.game import (
    ChangeStack,
    Decision,
    GameState,
    ReportState,
    player_data,
    player_from_data,
)
from app.domain.json_data import to_data
from app.domain.report import Outcome
from app.domain.rounds import RoundState

STATE_FORMAT = 2


def state_data(game: GameState) -> dict[str, Any]:
    """The state as JSON-ready data (``id`` and ``version`` are columns of their own)."""
    return {
        "format": STATE_FORMAT,
        "seed": game.seed,
        "expansions": list(game.expansions),
        "tiles": {str(period): tile_id for period, tile_id in sorted(game.tile_ids.items())},
        "players_enter_faith": game.players_enter_faith,
        "players": [player_data(player) for player in game.players],
        "turn_order": list(game.turn_order),
        "reports": [
            {
                "period": report.period,
                "status": report.status,
                # As dataclasses.asdict writes them (report.py), by the writer that is
                # chosen once per class (asdict copies every value deeply, on each change).
                "decisions": to_data(report.decisions),
                "outcomes": None if report.outcomes is None else to_data(report.outcomes),
                "resolved_at": None
                if report.resolved_at is None
                else report.resolved_at.isoformat(),
            }
            for report in game.reports
        ],
        "round": None if game.round is None else to_data(game.round),
        "undoable": game.undoable.pairs(),
        "redoable": game.redoable.pairs(),
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
        players=tuple(player_from_data(p) for p in data["players"]),
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
        round=None if data["round"] is None else RoundState(**data["round"]),
        undoable=ChangeStack(data["undoable"]),
        redoable=ChangeStack(data["redoable"]),
    )
