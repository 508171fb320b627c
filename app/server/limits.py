"""The edge's bounds, read once from the settings and handed to every connection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.settings import Settings


@dataclass(frozen=True)
class EdgeLimits:
    """What one worker process accepts before the app sees a request (see docs/api.md,
    "Limits at the edge")."""

    max_header_bytes: int = 16384
    max_headers: int = 100
    keepalive_timeout: float = 5.0
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    send_timeout: float = 30.0
    max_connections: int = 1000
    max_connections_per_address: int = 64
    # CIDRs (as text: the limits are pickled for the workers) whose connections are not
    # counted per address.
    trusted_proxies: tuple[str, ...] = ()
    max_pipelined_requests: int = 16
    retry_after_seconds: int = 2
    # After a 431 the connection stops answering but keeps reading (and dropping) for a
    # moment, so that closing it does not reset the answer away before the client reads it.
    linger_seconds: float = 2.0
    linger_bytes: int = 1 << 20

    @classmethod
    def from_settings(cls, settings: Settings) -> EdgeLimits:
        return cls(
            max_header_bytes=settings.max_header_bytes,
            max_headers=settings.max_headers,
            keepalive_timeout=settings.keepalive_timeout_seconds,
            header_timeout=settings.header_timeout_seconds,
            body_timeout=settings.body_timeout_seconds,
            send_timeout=settings.send_timeout_seconds,
            max_connections=settings.max_connections,
            max_connections_per_address=settings.max_connections_per_address,
            trusted_proxies=tuple(str(network) for network in settings.trusted_proxies),
            max_pipelined_requests=settings.max_pipelined_requests,
            retry_after_seconds=settings.retry_after_seconds,
        )
