"""Stored games: creation, reads, faith, leaders, turn order, rounds, reports, undo and
redo (the documents events carry too are in ``documents.py``, the events in ``events.py``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator

from app.api.schemas.base import (
    FaithIn,
    PeriodKey,
    PeriodNumber,
    PlayerLeaders,
    PlayerRef,
    ResponseModel,
    Seed,
    StrictModel,
    examples,
)

# The documents and events are imported from here too (presenters, routers, tests).
from app.api.schemas.documents import PlayerRead as PlayerRead
from app.api.schemas.documents import ReportRead as ReportRead
from app.api.schemas.documents import RoundRead as RoundRead
from app.api.schemas.events import EventList as EventList
from app.api.schemas.events import EventRead as EventRead
from app.api.schemas.reference import TileRead
from app.domain.draw import MAX_SEED
from app.domain.game import MAX_FAITH_DELTA, NewPlayer, PlayType
from app.domain.players import BASE_GAME_PLAYERS, HOUSES_OF_RENAISSANCE, MAX_PLAYERS, MIN_PLAYERS
from app.domain.report import Choice
from app.services.games import NewGame

PlayerName = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=50, pattern=r"^[^\x00-\x1f\x7f-\x9f]+$"
    ),
]


class PlayerCreate(StrictModel):
    model_config = examples({"name": "Anna", "leaders": ["sisto_iv"]})

    name: PlayerName
    leaders: PlayerLeaders = Field(default_factory=list)


class NamedTiles(StrictModel):
    model_config = examples({"1": "I-4", "2": "II-7", "3": "III-4"})

    period_1: str = Field(alias="1", min_length=1, max_length=16)
    period_2: str = Field(alias="2", min_length=1, max_length=16)
    period_3: str = Field(alias="3", min_length=1, max_length=16)

    def by_period(self) -> dict[int, str]:
        return {1: self.period_1, 2: self.period_2, 3: self.period_3}


class GameCreate(StrictModel):
    model_config = examples(
        {
            "players": [
                {"name": "Anna", "leaders": ["sisto_iv"]},
                {"name": "Bruno"},
                {"name": "Carla", "leaders": ["santa_rita"]},
            ],
            "expansions": ["base"],
            "seed": 42,
        },
        {
            "players": [{"name": "Anna"}, {"name": "Bruno"}],
            "tiles": {"1": "I-4", "2": "II-7", "3": "III-4"},
            "players_enter_faith": True,
        },
        {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 7, "track_rounds": True},
    )

    players: list[PlayerCreate] = Field(
        min_length=MIN_PLAYERS,
        max_length=MAX_PLAYERS,
        description=f"{MIN_PLAYERS} to {BASE_GAME_PLAYERS} players; a fifth seat comes with "
        f"the Houses of Renaissance expansion: `{HOUSES_OF_RENAISSANCE}` in `expansions` "
        "(R-PLY-1).",
    )
    expansions: list[str] = Field(default_factory=lambda: ["base"], min_length=1, max_length=8)
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED)
    tiles: NamedTiles | None = None
    players_enter_faith: bool = False
    track_rounds: bool = Field(
        default=False,
        description="Follow the six rounds: a report then resolves only in its round's "
        "report phase, and the round cannot move past an open report (R-RND-1..4).",
    )

    def to_domain(self) -> NewGame:
        return NewGame(
            players=[NewPlayer(p.name, tuple(p.leaders)) for p in self.players],
            expansions=self.expansions,
            seed=self.seed,
            tiles=None if self.tiles is None else self.tiles.by_period(),
            players_enter_faith=self.players_enter_faith,
            track_rounds=self.track_rounds,
        )


class ReportSummary(ResponseModel):
    period: PeriodNumber
    status: Literal["open", "resolved"]
    threshold: int


class GameRead(ResponseModel):
    id: str
    version: int
    seed: Seed | None
    expansions: list[str]
    players_enter_faith: bool
    tiles: dict[PeriodKey, TileRead]
    turn_order: list[str]
    players: list[PlayerRead]
    reports: list[ReportSummary]
    round: RoundRead | None = Field(
        default=None, description="null when the game was created without `track_rounds`."
    )


class GameCreated(ResponseModel):
    game: GameRead
    host_token: str = Field(description="Shown once: the service stores only its hash.")
    player_tokens: dict[str, str] = Field(description="Shown once, by player id.")
    recovery_code: str = Field(
        description="Shown once, stored only as a hash: regains the host seat when the "
        "host's device and what it stored are lost (`POST .../recovery`). Keep it apart "
        "from the host token (on paper, in a password manager)."
    )


class FaithUpdate(StrictModel):
    model_config = examples({"faith": 4})

    faith: FaithIn


class PlayerFaithRead(ResponseModel):
    player: PlayerRead
    faith_lost: int


class FaithChangeCreate(StrictModel):
    model_config = examples({"delta": 1}, {"delta": -2})

    delta: int = Field(
        ge=-MAX_FAITH_DELTA,
        le=MAX_FAITH_DELTA,
        description="Faith to add (negative: to remove), not 0. Above 15 is lost; a "
        "removal stops at 0 (R-FT-3).",
    )

    @field_validator("delta")
    @classmethod
    def _not_zero(cls, delta: int) -> int:
        if delta == 0:
            raise ValueError("a faith change of 0 changes nothing")
        return delta


class FaithChangeRead(ResponseModel):
    player: PlayerRead
    faith_lost: int = Field(description="Faith above 15 that was not kept (R-FT-2).")
    applied: int = Field(
        description="The change the track took: `delta`, less what was lost above 15 or "
        "floored at 0."
    )


class FaithBatchUpdate(StrictModel):
    model_config = examples({"faith": {"p1": 3, "p2": 7}})

    faith: dict[PlayerRef, FaithIn] = Field(min_length=1, max_length=MAX_PLAYERS)


class FaithBatchRead(ResponseModel):
    players: list[PlayerRead]
    faith_lost: dict[str, int]


class LeadersUpdate(StrictModel):
    model_config = examples({"leaders": ["sisto_iv"]})

    leaders: PlayerLeaders


class TurnOrderUpdate(StrictModel):
    model_config = examples({"turn_order": ["p2", "p1", "p3"]})

    turn_order: list[PlayerRef] = Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)


class DecisionUpdate(StrictModel):
    model_config = examples({"choice": "support"})

    choice: Choice


class ResolutionCreate(StrictModel):
    model_config = examples({}, {"default_choice": "support"})

    default_choice: Choice | None = None


class ChangeRefRead(ResponseModel):
    """A logged change of play, by its seq (the version it produced) and type."""

    seq: int
    type: PlayType


class UndoRead(ResponseModel):
    undone: ChangeRefRead = Field(description="The change this undo reverted.")
    undo: ChangeRefRead | None = Field(description="What the next undo would revert.")
    redo: ChangeRefRead | None = Field(description="What a redo would apply again.")
    game: GameRead


class RedoRead(ResponseModel):
    redone: ChangeRefRead = Field(description="The change this redo applied again.")
    undo: ChangeRefRead | None = Field(description="What the next undo would revert.")
    redo: ChangeRefRead | None = Field(description="What the next redo would apply again.")
    game: GameRead
