"""Runtime settings, read once from the environment (plain names, no prefix)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import Field, IPvAnyNetwork, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


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

    # Rate limits (GCRA, kept in the database: they hold across replicas). A rate is in
    # requests per minute, 0 turns the limit off; a burst is how many may come at once.
    game_creation_rate: float = Field(default=1.0, ge=0)
    game_creation_burst: int = Field(default=20, ge=1)
    game_write_rate: float = Field(default=120.0, ge=0)
    game_write_burst: int = Field(default=60, ge=1)
    # Peers whose X-Forwarded-For is believed (CIDRs, comma-separated); none by default.
    trusted_proxies: Annotated[tuple[IPvAnyNetwork, ...], NoDecode] = ()

    # Games idle longer than this are deleted (0 keeps them forever), by ``python -m app
    # purge`` and by a sweep every interval (0: no sweep in the service), a batch at a time.
    game_retention_days: float = Field(default=30.0, ge=0)
    retention_sweep_seconds: float = Field(default=300.0, ge=0)
    retention_batch_size: int = Field(default=500, ge=1)

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _split_proxies(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first use."""
    return Settings()
