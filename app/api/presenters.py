"""Domain values as the API's documents.

:class:`JsonPresenter` is the presenter the use cases store their answers with (the read
model of each game, the replayable answers of idempotent requests); the functions below
it shape the calculations' results.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from pydantic import BaseModel

from app.api.schemas.games import (
    ChangeRefRead,
    FaithChangeRead,
    GameCreated,
    GameRead,
    RedoRead,
    ReportRead,
    UndoRead,
)
from app.api.schemas.reference import TileRead
from app.api.schemas.seats import RecoveryRead, SeatTokenRead
from app.domain import gains as domain_gains
from app.domain.faith import period_info
from app.domain.game import ChangeRef, GameState, report_view
from app.domain.scoring import PlayerScore
from app.domain.tiles import Catalogue

# Bump when the document changes in a way its JSON schema does not show (a field's meaning).
DOCUMENT_FORMAT = 1


class JsonPresenter:
    """Renders stored games, for the API and for the use cases (their ``Presenter`` port)."""

    def __init__(self, catalogue: Catalogue) -> None:
        self._tiles = {tile.id: TileRead.of(tile) for tile in catalogue.select()}
        self._tile_json = {
            tile_id: orjson.Fragment(tile.model_dump_json())
            for tile_id, tile in self._tiles.items()
        }
        # A stored document made under another key (another release's GameRead, other tile
        # texts) is stale: the key names everything a document is rendered from.
        fingerprint = json.dumps(
            [
                DOCUMENT_FORMAT,
                GameRead.model_json_schema(),
                [tile.model_dump(mode="json") for tile in self._tiles.values()],
            ],
            sort_keys=True,
        )
        self.key = hashlib.sha256(fingerprint.encode()).hexdigest()

    def game_read(self, game: GameState) -> GameRead:
        # One validation of the whole document, its players and round read by attribute
        # inside it, rather than a model built in Python for each part.
        return GameRead.model_validate(_game_values(game, self._tiles))

    def game(self, game: GameState) -> str:
        """The game's document, the JSON ``game_read`` would write (every change of a game
        renders it): the same values written by orjson, without the model's validation,
        the domain's players and round as their dataclasses (fields named and ordered as
        ``PlayerRead``'s and ``RoundRead``'s) and each tile's JSON written once.
        tests/api/test_presenters.py holds it to ``game_read``'s JSON, byte for byte."""
        return orjson.dumps(_game_values(game, self._tile_json)).decode()

    def created(
        self,
        game: GameState,
        host_token: str,
        player_tokens: Mapping[str, str],
        recovery_code: str,
    ) -> bytes:
        model = GameCreated(
            game=self.game_read(game),
            host_token=host_token,
            player_tokens=dict(player_tokens),
            recovery_code=recovery_code,
        )
        return model.__pydantic_serializer__.to_json(model)

    def report(self, game: GameState, period: int) -> bytes:
        return _json(report_read(game, period))

    def faith_changed(self, game: GameState, player_id: str, lost: int, applied: int) -> bytes:
        player = game.player(player_id)  # read by attribute in the one validation
        answer = {"player": player, "faith_lost": lost, "applied": applied}
        return _json(FaithChangeRead.model_validate(answer))

    def reverted(self, game: GameState, change: ChangeRef, *, undone: bool) -> bytes:
        reverted = ChangeRefRead.model_validate(change)
        undo = _last(game.undoable)
        redo = _last(game.redoable)
        document = self.game_read(game)
        if undone:
            return _json(UndoRead(undone=reverted, undo=undo, redo=redo, game=document))
        return _json(RedoRead(redone=reverted, undo=undo, redo=redo, game=document))

    def seat_token(self, seat: str, token: str) -> bytes:
        return _json(SeatTokenRead(seat=seat, token=token))

    def recovered(self, host_token: str, recovery_code: str) -> bytes:
        return _json(RecoveryRead(host_token=host_token, recovery_code=recovery_code))


def _game_values(game: GameState, tiles: Mapping[str, Any]) -> dict[str, Any]:
    """A ``GameRead``'s values, each tile as ``tiles`` has it."""
    return {
        "id": game.id,
        "version": game.version,
        "seed": game.seed,
        "expansions": game.expansions,
        "players_enter_faith": game.players_enter_faith,
        "tiles": {str(period): tiles[tile_id] for period, tile_id in sorted(game.tile_ids.items())},
        "turn_order": game.turn_order,
        "players": game.players,
        "reports": [
            {"period": r.period, "status": r.status, "threshold": period_info(r.period).threshold}
            for r in game.reports
        ],
        "round": game.round,
    }


def _json(model: BaseModel) -> bytes:
    return model.__pydantic_serializer__.to_json(model)


def _last(changes: Sequence[ChangeRef]) -> ChangeRefRead | None:
    return ChangeRefRead.model_validate(changes[-1]) if changes else None


def report_read(game: GameState, period: int) -> ReportRead:
    return ReportRead.model_validate(report_view(game, period))


# The calculations answer with documents written as plain data, straight to JSON: their
# response models still declare the shape (the docs, the contract), but building and
# validating a model per gain, step and score part cost as much as the rules themselves.
# tests/api/test_presenters.py checks each document against its model.


def gains_document(result: domain_gains.GainsResult) -> dict[str, Any]:
    """A :class:`~app.api.schemas.calculations.GainsResult`."""
    return {
        "gains": [
            {
                "source": {"kind": o.gain.source_kind, "name": o.gain.source_name},
                "received": o.received,
                "steps": [
                    {"rule": s.rule, "by": s.by, "change": s.change, "note": s.note}
                    for s in o.steps
                ],
                "result": o.result,
            }
            for o in result.gains
        ],
        "total": result.total,
    }


def final_scores_document(scores: Sequence[PlayerScore]) -> dict[str, Any]:
    """A :class:`~app.api.schemas.calculations.FinalScoresResult`."""
    return {
        "players": [
            {
                "player_id": score.player_id,
                "parts": [
                    {
                        "rule": p.rule,
                        "part": p.part,
                        "change": p.change,
                        "by": p.by,
                        "note": p.note,
                    }
                    for p in score.parts
                ],
                "total": score.total,
            }
            for score in scores
        ]
    }
