"""Stored games: create, read, faith, leaders, turn order, computations and the event log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Response

from app.api.deps import Games, Replays, Tiles
from app.api.headers import IdempotencyKey, IfMatch, Token, etag
from app.api.presenters import gains_read, game_read, player_read, replayable, scores_read
from app.api.problems import problem_responses
from app.api.routers.calculations import to_gain, to_scoring_player
from app.api.schemas.base import JSONModelResponse, WholeNumber
from app.api.schemas.calculations import (
    FinalScoresResult,
    GainsResult,
    GameFinalScoresCalculation,
    PlayerGainsCalculation,
)
from app.api.schemas.games import (
    EventList,
    EventRead,
    FaithBatchRead,
    FaithBatchUpdate,
    FaithUpdate,
    GameCreate,
    GameCreated,
    GameRead,
    LeadersUpdate,
    PlayerFaithRead,
    PlayerRead,
    TurnOrderUpdate,
)
from app.services.games import CreatedGame, NewPlayer
from app.services.idempotency import StoredAnswer, request_fingerprint

router = APIRouter(prefix="/v1/games", tags=["games"])

READ_PROBLEMS = ("unauthorized", "not-found", "service-unavailable")
CHANGE_PROBLEMS = (*READ_PROBLEMS, "forbidden", "validation-error", "version-mismatch")


@router.post(
    "",
    status_code=201,
    operation_id="createGame",
    response_model=GameCreated,
    responses=problem_responses(
        "validation-error",
        "unknown-expansion",
        "idempotency-key-reused",
        "idempotency-in-flight",
        "payload-too-large",
        "service-unavailable",
    ),
)
def create_game(
    body: GameCreate, games: Games, catalogue: Tiles, replays: Replays, key: IdempotencyKey
) -> Response:
    """Create a game: players (2..5) get ids p1, p2... in the order given, which is the
    first turn order. The tiles are drawn from `seed` (random when omitted) or named in
    `tiles`. The host token and the player tokens are shown only in this answer."""
    named = None
    if body.tiles is not None:
        named = {1: body.tiles.period_1, 2: body.tiles.period_2, 3: body.tiles.period_3}
    plan = games.plan_game(
        [NewPlayer(p.name, tuple(p.leaders)) for p in body.players],
        body.expansions,
        body.seed,
        named,
        body.players_enter_faith,
    )

    def render(created: CreatedGame) -> StoredAnswer:
        model = GameCreated(
            game=game_read(created.game, catalogue),
            host_token=created.host_token,
            player_tokens=created.player_tokens,
        )
        return StoredAnswer(
            201,
            model.__pydantic_serializer__.to_json(model),
            {"Location": f"/v1/games/{created.game.id}", "ETag": etag(created.game.version)},
        )

    fingerprint = request_fingerprint("createGame", body.model_dump_json(by_alias=True))
    answer = replays.run(
        "createGame", key, fingerprint, lambda session: games.create_game(session, plan), render
    )
    return replayable(answer)


@router.get(
    "/{game_id}",
    operation_id="getGame",
    response_model=GameRead,
    responses={
        304: {"description": "Not modified (If-None-Match names the current version)."},
        **problem_responses(*READ_PROBLEMS),
    },
)
def get_game(
    game_id: str,
    games: Games,
    catalogue: Tiles,
    token: Token,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """The game with its players, tiles, turn order and report statuses; `ETag` is its version."""
    game = games.get_game(game_id, token)
    tag = etag(game.version)
    # If-None-Match compares weakly (RFC 9110): W/"3" matches "3".
    if if_none_match is not None and tag in [
        t.strip().removeprefix("W/") for t in if_none_match.split(",")
    ]:
        return Response(status_code=304, headers={"ETag": tag})
    return JSONModelResponse(game_read(game, catalogue), headers={"ETag": tag})


@router.put(
    "/{game_id}/players/{player_id}/faith",
    operation_id="setPlayerFaith",
    response_model=PlayerFaithRead,
    responses=problem_responses(*CHANGE_PROBLEMS),
)
def set_player_faith(
    game_id: str, player_id: str, body: FaithUpdate, games: Games, token: Token, version: IfMatch
) -> JSONModelResponse:
    """R-FT-2: set one player's faith; above 15 is stored as 15 and `faith_lost` says how
    much was lost. The host may; a player only for itself in a `players_enter_faith` game."""
    game, lost = games.set_faith(game_id, {player_id: body.faith}, token, version, single=True)
    player = next(p for p in game.players if p.id == player_id)
    return JSONModelResponse(
        PlayerFaithRead(player=player_read(player), faith_lost=lost[player_id]),
        headers={"ETag": etag(game.version)},
    )


@router.put(
    "/{game_id}/faith",
    operation_id="setFaith",
    response_model=FaithBatchRead,
    responses=problem_responses(*CHANGE_PROBLEMS),
)
def set_faith(
    game_id: str, body: FaithBatchUpdate, games: Games, token: Token, version: IfMatch
) -> JSONModelResponse:
    """R-FT-2: the host sets several players' faith in one transaction."""
    game, lost = games.set_faith(game_id, body.faith, token, version, single=False)
    return JSONModelResponse(
        FaithBatchRead(
            players=[player_read(p) for p in game.players if p.id in body.faith], faith_lost=lost
        ),
        headers={"ETag": etag(game.version)},
    )


@router.put(
    "/{game_id}/players/{player_id}/leaders",
    operation_id="setPlayerLeaders",
    response_model=PlayerRead,
    responses=problem_responses(*CHANGE_PROBLEMS),
)
def set_leaders(
    game_id: str, player_id: str, body: LeadersUpdate, games: Games, token: Token, version: IfMatch
) -> JSONModelResponse:
    """The player's active leaders that matter here: Sisto IV, Santa Rita, Martin Lutero."""
    game, player = games.set_leaders(game_id, player_id, body.leaders, token, version)
    return JSONModelResponse(player_read(player), headers={"ETag": etag(game.version)})


@router.put(
    "/{game_id}/turn-order",
    operation_id="setTurnOrder",
    response_model=GameRead,
    responses=problem_responses(*CHANGE_PROBLEMS),
)
def set_turn_order(
    game_id: str,
    body: TurnOrderUpdate,
    games: Games,
    catalogue: Tiles,
    token: Token,
    version: IfMatch,
) -> JSONModelResponse:
    """R-REP-3: the turn order reports use; every player exactly once."""
    game = games.set_turn_order(game_id, body.turn_order, token, version)
    return JSONModelResponse(game_read(game, catalogue), headers={"ETag": etag(game.version)})


@router.post(
    "/{game_id}/players/{player_id}/gain-adjustments",
    operation_id="calculatePlayerGains",
    response_model=GainsResult,
    responses=problem_responses(
        "unauthorized", "forbidden", "not-found", "validation-error", "service-unavailable"
    ),
)
def gain_adjustments(
    game_id: str, player_id: str, body: PlayerGainsCalculation, games: Games, token: Token
) -> JSONModelResponse:
    """R-GAIN-*: the gains under the player's stored excommunications and leaders.
    Computes only; stores nothing."""
    result = games.gain_adjustments(game_id, player_id, [to_gain(g) for g in body.gains], token)
    return JSONModelResponse(gains_read(result))


@router.post(
    "/{game_id}/final-scores",
    operation_id="calculateGameFinalScores",
    response_model=FinalScoresResult,
    responses=problem_responses(
        "unauthorized", "not-found", "validation-error", "service-unavailable"
    ),
)
def game_final_scores(
    game_id: str, body: GameFinalScoresCalculation, games: Games, token: Token
) -> JSONModelResponse:
    """R-END-*: final scores with each player's stored excommunications (so far, when
    called before the end). Every player listed once by id. Computes only."""
    scores = games.final_scores(game_id, [to_scoring_player(p) for p in body.players], token)
    return JSONModelResponse(FinalScoresResult(players=scores_read(scores)))


@router.get(
    "/{game_id}/events",
    operation_id="listGameEvents",
    response_model=EventList,
    responses=problem_responses(
        "unauthorized", "not-found", "validation-error", "service-unavailable"
    ),
)
def list_events(
    game_id: str,
    games: Games,
    token: Token,
    after: Annotated[int, Query(ge=0, le=2**31 - 1), WholeNumber] = 0,
    limit: Annotated[int, Query(ge=1, le=1000), WholeNumber] = 100,
) -> JSONModelResponse:
    """Every change to the game, in order: `seq` equals the game version it produced."""
    events = games.list_events(game_id, after, limit, token)
    return JSONModelResponse(
        EventList(
            events=[EventRead(seq=e.seq, type=e.type, at=e.at, data=e.data) for e in events],
            last_seq=events[-1].seq if events else after,
        )
    )
