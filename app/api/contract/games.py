"""Stored games: create, read, delete, faith, leaders, turn order and rounds."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from app.api.contract.dependencies import GameUseCases
from app.api.platform.admission import changes_game, creates_game
from app.api.platform.client_address import ClientAddress
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.headers import IdempotencyKey, IfMatch, IfNoneMatch, Token
from app.api.platform.responses import (
    JSONModelResponse,
    NotModifiedResponse,
    etag,
    raw_json_response,
    replayable,
    versioned,
)
from app.api.problems import problem_responses
from app.api.schemas.games import (
    FaithBatchRead,
    FaithBatchUpdate,
    FaithChangeCreate,
    FaithChangeRead,
    FaithUpdate,
    GameCreate,
    GameCreated,
    GameRead,
    LeadersUpdate,
    PlayerFaithRead,
    PlayerRead,
    TurnOrderUpdate,
)
from app.services.idempotency import request_fingerprint

router = APIRouter(prefix="/v1/games", tags=["games"], route_class=ExplicitRoute)

READ_PROBLEMS = ("bad-request", "unauthorized", "not-found", "service-unavailable")
CHANGE_PROBLEMS = (
    *READ_PROBLEMS,
    "forbidden",
    "validation-error",
    "unsupported-media-type",
    "version-mismatch",
    "event-limit-reached",
    "seat-event-limit-reached",
    "too-many-requests",
)
NOT_MODIFIED: dict[int | str, dict[str, Any]] = {
    304: {"description": "Not modified: `If-None-Match` names the current version."}
}


def not_modified(version: int) -> Response:
    return NotModifiedResponse(version)


@router.post(
    "",
    status_code=201,
    operation_id="createGame",
    response_model=GameCreated,
    responses=problem_responses(
        "bad-request",
        "validation-error",
        "unknown-expansion",
        "unsupported-media-type",
        "idempotency-key-reused",
        "idempotency-in-flight",
        "payload-too-large",
        "too-many-requests",
        "service-unavailable",
    ),
)
@creates_game
def create_game(
    body: GameCreate, games: GameUseCases, key: IdempotencyKey, client: ClientAddress
) -> Response:
    """Create a game: players (2..5) get ids p1, p2... in the order given, which is the
    first turn order. The tiles are drawn from `seed` (random when omitted) or named in
    `tiles`. The host token and the player tokens are shown only in this answer."""
    fingerprint = request_fingerprint("createGame", body.model_dump_json(by_alias=True))
    return replayable(games.create_game(body.to_domain(), key, fingerprint, client), secret=True)


@router.get(
    "/{game_id}",
    operation_id="getGame",
    response_model=GameRead,
    responses={**NOT_MODIFIED, **problem_responses(*READ_PROBLEMS)},
)
async def get_game(
    game_id: str, games: GameUseCases, token: Token, cached: IfNoneMatch
) -> Response:
    """The game with its players, tiles, turn order and report statuses; `ETag` is its version."""
    if cached:
        # A client polling with the ETag it holds costs one small read, no document.
        version = await games.current_version(game_id, token)
        if version in cached:
            return not_modified(version)
    document = await games.get_game(game_id, token)
    if document.version in cached:
        return not_modified(document.version)
    return raw_json_response(document.body, 200, {"ETag": etag(document.version)})


@router.put(
    "/{game_id}/players/{player_id}/faith",
    operation_id="setPlayerFaith",
    response_model=PlayerFaithRead,
    responses=problem_responses(*CHANGE_PROBLEMS),
)
@changes_game
def set_player_faith(
    game_id: str,
    player_id: str,
    body: FaithUpdate,
    games: GameUseCases,
    token: Token,
    if_match: IfMatch,
) -> JSONModelResponse:
    """R-FT-2: set one player's faith; above 15 is stored as 15 and `faith_lost` says how
    much was lost. The host may; a player only for itself in a `players_enter_faith` game."""
    change = games.set_faith(game_id, {player_id: body.faith}, token, if_match, single=True)
    (player,) = change.players
    # One validation, the player read by attribute inside it.
    answer = {"player": player, "faith_lost": change.lost[player_id]}
    return versioned(PlayerFaithRead.model_validate(answer), change.version)


@router.delete(
    "/{game_id}",
    status_code=204,
    operation_id="deleteGame",
    response_class=Response,
    responses={
        204: {"description": "Deleted: the game, its events and its keys' answers are gone."},
        **problem_responses(*READ_PROBLEMS, "forbidden", "version-mismatch"),
    },
)
@changes_game
def delete_game(game_id: str, games: GameUseCases, token: Token, if_match: IfMatch) -> Response:
    """The host deletes the game, with its events, the answers of its idempotency keys and
    its limits, in one transaction. Whoever follows it live has the stream (or long-poll)
    end; every call on it answers 404 afterwards, a retry with an Idempotency-Key it used
    (its creation's included) too."""
    games.delete_game(game_id, token, if_match)
    return Response(status_code=204)


@router.post(
    "/{game_id}/players/{player_id}/faith-changes",
    operation_id="changePlayerFaith",
    response_model=FaithChangeRead,
    responses=problem_responses(
        *CHANGE_PROBLEMS, "idempotency-key-reused", "idempotency-in-flight"
    ),
)
@changes_game
def change_player_faith(
    game_id: str,
    player_id: str,
    body: FaithChangeCreate,
    games: GameUseCases,
    token: Token,
    if_match: IfMatch,
    key: IdempotencyKey,
) -> Response:
    """R-FT-3: add Faith to a player (or remove it, with a negative `delta`), on the faith
    it has when the change is stored: changes sent at once all count, none is lost.
    Above 15 is lost (`faith_lost`); a removal stops at 0 (`applied` says what the track
    took). Who may: as for setting faith. With an `Idempotency-Key` a retry replays the
    first answer; with `If-Match`, 412 when the game moved on."""
    fingerprint = request_fingerprint(
        f"changePlayerFaith:{game_id}:{player_id}", body.model_dump_json()
    )
    answer = games.change_faith(game_id, player_id, body.delta, token, if_match, key, fingerprint)
    return replayable(answer)


@router.post(
    "/{game_id}/round-advances",
    operation_id="advanceRound",
    response_model=GameRead,
    responses=problem_responses(
        *CHANGE_PROBLEMS,
        "rounds-not-tracked",
        "report-still-open",
        "last-round",
        "idempotency-key-reused",
        "idempotency-in-flight",
    ),
)
@changes_game
def advance_round(
    game_id: str, games: GameUseCases, token: Token, if_match: IfMatch, key: IdempotencyKey
) -> Response:
    """R-RND-1..4: the host moves a game created with `track_rounds` on: round N's play
    to its Vatican Report phase (N = 2, 4, 6) or to round N+1, a report phase to the next
    round once its report is resolved. Answers the game; undoable like any change of
    play. Send `If-Match` (or an `Idempotency-Key`) so that a retry does not advance
    twice."""
    fingerprint = request_fingerprint(f"advanceRound:{game_id}")
    return replayable(games.advance_round(game_id, token, if_match, key, fingerprint))


@router.put(
    "/{game_id}/faith",
    operation_id="setFaith",
    response_model=FaithBatchRead,
    responses=problem_responses(*CHANGE_PROBLEMS),
)
@changes_game
def set_faith(
    game_id: str, body: FaithBatchUpdate, games: GameUseCases, token: Token, if_match: IfMatch
) -> JSONModelResponse:
    """R-FT-2: the host sets several players' faith in one transaction."""
    change = games.set_faith(game_id, body.faith, token, if_match, single=False)
    return versioned(
        FaithBatchRead(
            players=[PlayerRead.model_validate(p) for p in change.players],
            faith_lost=change.lost,
        ),
        change.version,
    )


@router.put(
    "/{game_id}/players/{player_id}/leaders",
    operation_id="setPlayerLeaders",
    response_model=PlayerRead,
    responses=problem_responses(*CHANGE_PROBLEMS),
)
@changes_game
def set_leaders(
    game_id: str,
    player_id: str,
    body: LeadersUpdate,
    games: GameUseCases,
    token: Token,
    if_match: IfMatch,
) -> JSONModelResponse:
    """The player's active leaders that matter here: Sisto IV, Santa Rita, Martin Lutero."""
    game = games.set_leaders(game_id, player_id, body.leaders, token, if_match)
    return versioned(PlayerRead.model_validate(game.player(player_id)), game.version)


@router.put(
    "/{game_id}/turn-order",
    operation_id="setTurnOrder",
    response_model=GameRead,
    responses=problem_responses(*CHANGE_PROBLEMS),
)
@changes_game
def set_turn_order(
    game_id: str, body: TurnOrderUpdate, games: GameUseCases, token: Token, if_match: IfMatch
) -> Response:
    """R-REP-3: the turn order reports use; every player exactly once."""
    document = games.set_turn_order(game_id, body.turn_order, token, if_match)
    return raw_json_response(document.body, 200, {"ETag": etag(document.version)})
