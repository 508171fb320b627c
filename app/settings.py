"""Runtime settings, read once from the environment (plain names, no prefix)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


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
    log_level: str = "info"
    max_body_bytes: int = Field(default=65536, ge=0)
    tile_packs_dir: Path | None = None
    idempotency_ttl_hours: int = Field(default=24, ge=24)
    retry_after_seconds: int = Field(default=2, ge=0)
    db_pool_size: int = Field(default=5, ge=1)
    # Threads for the stored-game routes: more than the connection pool only queue on it
    # and contend for the GIL (measured in bench/RESULTS.md).
    threadpool_size: int = Field(default=4, ge=1)
    # The most changes (events) one game may log; a real game logs a few dozen.
    max_events_per_game: int = Field(default=1000, ge=1)
    # Following games live (docs/api.md "Following a game live").
    stream_heartbeat_seconds: float = Field(default=15.0, gt=0)
    stream_buffer_events: int = Field(default=256, ge=1)
    max_streams: int = Field(default=1000, ge=0)
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


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first use."""
    return Settings()
