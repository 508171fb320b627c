"""Runtime settings, read once from the environment (plain names, no prefix)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, IPvAnyNetwork, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

#: The event loops a worker can serve on (``EVENT_LOOP``).
EventLoop = Literal["asyncio", "uvloop"]
#: When SQLite syncs a commit to disk (``SQLITE_SYNCHRONOUS``; SQLite's own names).
SqliteSynchronous = Literal["normal", "full"]


class Settings(BaseSettings):
    """Everything the service reads from its environment.

    Built once by :func:`get_settings` (or by a test) and handed to ``create_app``; code
    reads it from ``app.state.settings``; what it configures is built once at start-up.
    """

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", frozen=True)

    # Relative to the working directory, so a checkout runs with no setup at all.
    database_url: str = "sqlite:///var/vatican-report.db"
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    workers: int = Field(default=1, ge=1)
    # The event loop each worker serves on. When a worker's CPU is all spent, the standard
    # library's answers every request within a few of its loop's turns; uvloop serves more
    # requests a second there, but accepts one new connection per turn, so that a burst of
    # new connections waits many times as long as the rest (bench/RESULTS.md).
    event_loop: EventLoop = "asyncio"
    log_level: str = "info"
    max_body_bytes: int = Field(default=65536, ge=0)
    tile_packs_dir: Path | None = None
    idempotency_ttl_hours: int = Field(default=24, ge=24)
    retry_after_seconds: int = Field(default=2, ge=0)
    db_pool_size: int = Field(default=5, ge=1)
    # Reads of a game (GET and its 304) on the event loop, holding no thread: on
    # PostgreSQL on their own DB_POOL_SIZE connections (app/persistence/async_reads.py),
    # on SQLite on one that never waits (sqlite_reads.py); false reads on the threadpool
    # as every other route does.
    db_async_reads: bool = True
    # Threads for the stored-game routes: more than the connection pool only queue on it
    # and contend for the GIL (measured in bench/RESULTS.md).
    threadpool_size: int = Field(default=4, ge=1)
    # Bounds on every wait on the database (docs/api.md "When the database is slow"): a
    # stuck database costs a request a 503 within them, never a thread for ever.
    db_pool_timeout_ms: int = Field(default=3000, ge=1)
    db_connect_timeout_s: int = Field(default=2, ge=2)  # libpq's minimum is 2
    db_lock_timeout_ms: int = Field(default=2000, ge=1)  # PostgreSQL and SQLite
    # When a SQLite change is on disk (docs/scaling.md, "What a crash can lose"): "normal"
    # syncs the write-ahead log at its checkpoints, so that a killed process loses no
    # acknowledged change but a power loss or an OS crash may lose the last ones; "full"
    # syncs it at every commit, so that none is lost, at a cost measured in bench/RESULTS.md.
    sqlite_synchronous: SqliteSynchronous = "normal"
    db_statement_timeout_ms: int = Field(default=3000, ge=1)  # PostgreSQL
    db_hold_timeout_ms: int = Field(default=5000, ge=1)  # PostgreSQL, client side
    readyz_timeout_ms: int = Field(default=1000, ge=1)
    # Changes of stored games that may run at once; always at least one thread fewer
    # than THREADPOOL_SIZE, so that changes stuck on a lock cannot starve the reads.
    max_concurrent_writes: int = Field(default=3, ge=1)
    # The most changes (events) one game may log; a real game logs a few dozen.
    max_events_per_game: int = Field(default=1000, ge=1)
    # The most changes one player's token may log in a game, capped at a tenth of
    # MAX_EVENTS_PER_GAME so that players together never fill more than half the log.
    max_events_per_player: int = Field(default=100, ge=1)
    # Following games live (docs/api.md "Following a game live").
    stream_heartbeat_seconds: float = Field(default=15.0, gt=0)
    stream_buffer_events: int = Field(default=256, ge=1)
    # Bytes of events (their SSE frames) a stream may have waiting for its client: a
    # client that falls this far behind has its stream ended, whatever the events' size.
    stream_buffer_bytes: int = Field(default=65536, ge=1)
    max_streams: int = Field(default=1000, ge=0)
    # Of those, what one seat of one game (its token: the host's or a player's) may hold:
    # a host screen, the host's phone and a reconnection that overlaps the stream it
    # replaces. A newer one ends the seat's oldest, so a lost phone's stream that the
    # process has not noticed yet never keeps its seat out, and one party's token cannot
    # take the places every other game shares.
    max_streams_per_seat: int = Field(default=4, ge=1)
    stream_max_seconds: float = Field(default=600.0, gt=0)
    # A long-poll (`wait`) answers after at most this long, whatever `wait` asks (<= 30).
    long_poll_max_seconds: float = Field(default=30.0, ge=0)
    # How often a process looks for changes committed by other processes when PostgreSQL's
    # LISTEN/NOTIFY is not there (SQLite), and re-checks after a lost listener connection.
    change_poll_seconds: float = Field(default=0.05, gt=0)

    # Origins whose web pages may call (comma-separated, `*` for any); none: same-origin only.
    cors_origins: str = ""
    # How long a browser may reuse a preflight's answer.
    cors_max_age_seconds: int = Field(default=600, ge=0)

    # The HTTP edge (app/server): what one worker process accepts before the app sees a
    # request. Connections are counted per worker process.
    # A request line plus headers larger than this, or with more header fields -> 431.
    max_header_bytes: int = Field(default=16384, ge=1024)
    max_headers: int = Field(default=100, ge=8)
    # A connection with no request under way is closed after this many idle seconds.
    keepalive_timeout_seconds: float = Field(default=5.0, gt=0)
    # A request's line and headers must all arrive within this many seconds of its first byte.
    header_timeout_seconds: float = Field(default=10.0, gt=0)
    # A request's body must all arrive within this many seconds of its headers, else 408.
    body_timeout_seconds: float = Field(default=10.0, gt=0)
    # A client that reads no answer for this long (the send buffer stays full) is cut off.
    send_timeout_seconds: float = Field(default=30.0, gt=0)
    # Connections past this many are answered 503 service-unavailable and closed. Event
    # streams hold a connection each: see ``stream_slots``.
    max_connections: int = Field(default=1250, ge=1)
    # Of those, what one client address may hold (an IPv6 client: its /64; a peer among
    # TRUSTED_PROXIES is not counted). A table is a host and five phones behind one home
    # router, each a browser holding at most six connections to a server, one of them an
    # event stream: 36, with room for reconnections that overlap the connections they
    # replace until those close.
    max_connections_per_address: int = Field(default=64, ge=1)
    # Requests one client address may have started per minute (GCRA, per worker, like
    # its connections; 0: no limit), and how many of them at once: a request past them
    # waits its turn (reading nothing more of its connection) instead of being refused,
    # so a flood of requests from one address spends no more of a worker than this rate.
    # A table's page load and its phones' calls stay well inside; a backend that calls
    # the service for many tables from one address may need more.
    request_rate_per_address: float = Field(default=6000.0, ge=0)
    request_burst_per_address: int = Field(default=200, ge=1)
    # Requests a client may pipeline ahead of their answers; past it, the connection
    # answers those and closes.
    max_pipelined_requests: int = Field(default=16, ge=1)
    # After SIGTERM, what is still being served gets this long to finish (streams and
    # long-polls end at once), then it is cancelled: the process exits within about a
    # second more, inside `docker stop`'s default 10 s.
    shutdown_timeout_seconds: int = Field(default=8, ge=1)

    @property
    def stream_slots(self) -> int:
        """``max_streams``, capped so that streams take at most four fifths of
        ``max_connections``: the rest stays free for ordinary requests."""
        return min(self.max_streams, self.max_connections * 4 // 5)

    @property
    def write_slots(self) -> int:
        """``max_concurrent_writes``, capped one below ``threadpool_size`` (min 1)."""
        return max(1, min(self.max_concurrent_writes, self.threadpool_size - 1))

    # Rate limits (GCRA, kept in the database: they hold across replicas). A rate is in
    # requests per minute, 0 turns the limit off; a burst is how many may come at once.
    game_creation_rate: float = Field(default=1.0, ge=0)
    game_creation_burst: int = Field(default=20, ge=1)
    # A game's changes are budgeted per seat: the host's token at GAME_WRITE_*, each
    # player's token at PLAYER_WRITE_* (so no player can spend the host's budget).
    game_write_rate: float = Field(default=120.0, ge=0)
    game_write_burst: int = Field(default=60, ge=1)
    player_write_rate: float = Field(default=30.0, ge=0)
    player_write_burst: int = Field(default=20, ge=1)
    # Peers whose X-Forwarded-For is believed (CIDRs, comma-separated); none by default.
    trusted_proxies: Annotated[tuple[IPvAnyNetwork, ...], NoDecode] = ()
    # Who may read /metrics: clients in these networks (behind a trusted proxy, the
    # proxy's client), or any client with this bearer token; everyone else gets a 404.
    metrics_networks: Annotated[tuple[IPvAnyNetwork, ...], NoDecode] = Field(
        default=("127.0.0.0/8", "::1/128"), validate_default=True
    )
    metrics_token: SecretStr | None = None

    # Games idle longer than this are deleted (0 keeps them forever), by ``python -m app
    # purge`` and by a sweep every interval (0: no sweep in the service), a batch at a time.
    game_retention_days: float = Field(default=30.0, ge=0)
    retention_sweep_seconds: float = Field(default=300.0, ge=0)
    retention_batch_size: int = Field(default=500, ge=1)

    @field_validator("trusted_proxies", "metrics_networks", mode="before")
    @classmethod
    def _split_networks(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("metrics_token", mode="before")
    @classmethod
    def _no_empty_token(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first use."""
    return Settings()
