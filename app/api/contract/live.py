"""Following a game: its event log, read a page at a time (``wait`` makes the read a
long-poll) or as Server-Sent Events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from prometheus_client import Counter, Gauge
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from app.api.contract.dependencies import GameUseCases, LiveGames
from app.api.contract.games import NOT_MODIFIED, READ_PROBLEMS, not_modified
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.headers import IfNoneMatch, Token
from app.api.platform.responses import versioned
from app.api.problems import problem_responses
from app.api.schemas.base import WholeNumber, is_ascii_digits
from app.api.schemas.events import EventList, EventRead
from app.domain.errors import InvalidInput
from app.services.live import LoggedEvent
from app.settings import Settings

router = APIRouter(prefix="/v1/games", tags=["games"], route_class=ExplicitRoute)

EVENT_STREAM = "text/event-stream"
MAX_WAIT_SECONDS = 30
_MAX_SEQ = 2**31 - 1
HEARTBEAT = b": heartbeat\n\n"
#: On a long-poll's page when the service ended its wait early: why, in a stream's words.
FOLLOW_ENDED = "Follow-Ended"

EVENT_SCHEMA = {
    "type": "object",
    "description": "One event of the stream.",
    "required": ["id", "event", "data"],
    "properties": {
        "id": {"type": "string", "description": "The event's seq.", "examples": ["2"]},
        "event": {"type": "string", "description": "Its type.", "examples": ["faith_set"]},
        "data": {
            "type": "string",
            "description": "The event as the events list shows it.",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": "#/components/schemas/EventRead"},
        },
    },
}

LIVE_SUBSCRIBERS = Gauge(
    "live_subscribers",
    "Clients following games live (streams and long-polls), summed over live processes.",
    multiprocess_mode="livesum",
)
LIVE_SUPERSEDED = Counter(
    "live_followers_superseded_total",
    "Followers ended for a newer one of their seat past MAX_STREAMS_PER_SEAT.",
)


def sse_frame(event: LoggedEvent) -> bytes:
    """One event as an SSE frame: ``id`` its seq, ``event`` its type, ``data`` the same
    JSON as in the events list (one line: JSON strings escape their newlines)."""
    data = EventRead.model_validate(event).model_dump_json()
    return f"id: {event.seq}\nevent: {event.type}\ndata: {data}\n\n".encode()


class EventStreamResponse(StreamingResponse):
    """A stream that calls ``on_close`` however it ends, even if it never started."""

    media_type = EVENT_STREAM

    def __init__(
        self,
        content: AsyncIterator[bytes],
        on_close: Callable[[], None] = lambda: None,
        status_code: int = 200,
    ) -> None:
        super().__init__(
            content,
            status_code,
            headers={
                "Cache-Control": "no-cache",
                # Proxies that buffer responses (nginx) must pass each event at once.
                "X-Accel-Buffering": "no",
            },
        )
        self.on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.on_close()


def _resume_point(after: int, last_event_id: str | None) -> int:
    """Where the client resumes: its ``Last-Event-ID`` (what a reconnecting client sends)
    wins over ``after`` (what its first URL said)."""
    if last_event_id is None:
        return after
    value = last_event_id.strip(" \t")
    if not is_ascii_digits(value, len(str(_MAX_SEQ))) or int(value) > _MAX_SEQ:
        raise InvalidInput(
            f"Last-Event-ID must be the seq of an event (0 to {_MAX_SEQ})",
            loc=("header", "Last-Event-ID"),
        )
    return int(value)


@router.get(
    "/{game_id}/events",
    operation_id="listGameEvents",
    response_model=EventList,
    responses={
        **NOT_MODIFIED,
        **problem_responses(*READ_PROBLEMS, "validation-error", "too-many-streams"),
    },
)
async def list_events(
    request: Request,
    game_id: str,
    games: GameUseCases,
    live: LiveGames,
    token: Token,
    cached: IfNoneMatch,
    after: Annotated[int, Query(ge=0, le=2**31 - 1), WholeNumber] = 0,
    limit: Annotated[int, Query(ge=1, le=1000), WholeNumber] = 100,
    wait: Annotated[
        float,
        Query(
            ge=0,
            le=MAX_WAIT_SECONDS,
            allow_inf_nan=False,
            description="Long-poll: with no event after `after` yet, answer when the first "
            "one is committed (on any replica), or after this many seconds with an empty "
            "page.",
        ),
    ] = 0,
) -> Response:
    """Every change to the game, in order: `seq` equals the game version it produced.
    The `ETag` is the game's version (a page of an append-only log changes only with it)."""
    # The token first, in one small read on the event loop: a stranger (404, 401) holds
    # no request thread, and a client polling with the ETag it holds costs no page.
    version, seat = await games.follower(game_id, token)
    if version in cached:
        return not_modified(version)
    version, events = await run_in_threadpool(games.list_events, game_id, after, limit, token)
    wait = min(wait, request.app.state.settings.long_poll_max_seconds)
    ended = None
    if not events and wait > 0:
        ended = await live.wait_after(game_id, version, after, wait, seat)
        version, events = await run_in_threadpool(games.list_events, game_id, after, limit, token)
    page = EventList(
        events=[EventRead.model_validate(e) for e in events],
        last_seq=events[-1].seq if events else after,
    )
    answer = versioned(page, version)
    if ended is not None:
        # The service cut the wait short: a client about to ask again learns why, as a
        # stream's last line would tell it (a seat followed past its bound: `superseded`).
        answer.headers[FOLLOW_ENDED] = ended
    return answer


@router.get(
    "/{game_id}/events/stream",
    operation_id="streamGameEvents",
    response_class=EventStreamResponse,
    responses={
        200: {
            "description": "Server-Sent Events: first every logged event after the resume "
            "point, then each new one as it is committed, on any replica. Each event is "
            "`id: <seq>`, `event: <type>`, `data: <EventRead JSON>`; a `: heartbeat` "
            "comment comes every `STREAM_HEARTBEAT_SECONDS` without events. The stream "
            "ends now and then (its time bound, a client too slow to keep up, shutdown): "
            "reconnect with `Last-Event-ID`.",
            # Before OpenAPI 3.2's itemSchema, an event stream's schema describes one event.
            "content": {EVENT_STREAM: {"schema": EVENT_SCHEMA}},
        },
        **problem_responses(
            "bad-request",
            "unauthorized",
            "not-found",
            "validation-error",
            "too-many-streams",
            "service-unavailable",
        ),
    },
)
async def stream_game_events(
    request: Request,
    game_id: str,
    games: GameUseCases,
    live: LiveGames,
    token: Token,
    after: Annotated[
        int,
        Query(ge=0, le=_MAX_SEQ, description="Start after this seq (when no Last-Event-ID)."),
        WholeNumber,
    ] = 0,
    last_event_id: Annotated[
        str | None,
        Header(
            alias="Last-Event-ID",
            description="The seq of the last event received: resume right after it.",
        ),
    ] = None,
) -> EventStreamResponse:
    """Follow the game live (host or player token, in the Authorization header only):
    every event after `Last-Event-ID` (or `after`) in order, each exactly once, then the
    new ones as they happen. See docs/api.md "Following a game live"."""
    start = _resume_point(after, last_event_id)
    # A few streams' token checks at a time: a flood of streams waits here, on the event
    # loop, and leaves the request threads to the other routes.
    async with live.admitting():
        checked_from = asyncio.get_running_loop().time()
        version, seat = await games.follower(game_id, token)
    settings: Settings = request.app.state.settings
    # The hub ends the stream when that seat's token is replaced or revoked.
    subscription = live.subscribe(game_id, version, seat, checked_from=checked_from)
    retry = f"retry: {settings.retry_after_seconds * 1000}\n\n".encode()

    async def frames() -> AsyncIterator[bytes]:
        yield retry
        async for frame in live.follow(
            subscription,
            start,
            heartbeat=settings.stream_heartbeat_seconds,
            max_seconds=settings.stream_max_seconds,
        ):
            yield HEARTBEAT if frame is None else frame
        # Why it ends, as a comment (SSE clients skip comments): see docs/api.md.
        if subscription.ended is not None:
            yield b": end %s\n\n" % subscription.ended.encode()

    return EventStreamResponse(frames(), on_close=lambda: live.unsubscribe(subscription))
