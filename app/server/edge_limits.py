"""The edge's bounds, read once from the settings and handed to every connection."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.settings import Settings


@dataclass(frozen=True)
class EdgeLimits:
    """What one worker process accepts before the app sees a request (see docs/api.md,
    "Limits at the edge")."""

    # No defaults here: every bound below is a setting, declared once (with its default and
    # range) in app/settings.py, and reaches the edge only through from_settings.
    max_header_bytes: int
    max_headers: int
    keepalive_timeout: float
    header_timeout: float
    body_timeout: float
    send_timeout: float
    max_connections: int
    max_connections_per_address: int
    # Requests started per minute from one address (0: no limit), and at once.
    request_rate_per_address: float
    request_burst_per_address: int
    # CIDRs (as text: the limits are pickled for the workers) whose connections are not
    # counted per address.
    trusted_proxies: tuple[str, ...]
    max_pipelined_requests: int
    retry_after_seconds: int
    # After a 431 the connection stops answering but keeps reading (and dropping) for a
    # moment, so that closing it does not reset the answer away before the client reads it.
    linger_seconds: float = 2.0
    linger_bytes: int = 1 << 20

    # Worked out once (the limits are made once per process), not for each connection.
    @functools.cached_property
    def request_interval(self) -> float:
        """The seconds one request of an address uses up of its rate (0: no limit)."""
        rate = self.request_rate_per_address
        return 60.0 / rate if rate > 0 else 0.0

    @functools.cached_property
    def request_tolerance(self) -> float:
        """How far ahead of now an address's next due time may be and its request still
        start at once: the burst, less the one request that is due now."""
        return self.request_interval * (self.request_burst_per_address - 1)

    @functools.cached_property
    def request_rate_detail(self) -> str:
        """What a client refused past its request rate is told."""
        return (
            f"Too many requests from this client: at most {self.request_burst_per_address} "
            f"at once, then {self.request_rate_per_address:g} a minute."
        )

    @classmethod
    def defaults(cls) -> EdgeLimits:
        """The bounds the settings give (the environment's, else their defaults), for a
        server started without our config: read from the one place they are declared,
        once per process (every connection of such a server asks)."""
        return _settings_limits()

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
            request_rate_per_address=settings.request_rate_per_address,
            request_burst_per_address=settings.request_burst_per_address,
            trusted_proxies=tuple(str(network) for network in settings.trusted_proxies),
            max_pipelined_requests=settings.max_pipelined_requests,
            retry_after_seconds=settings.retry_after_seconds,
        )


@functools.cache
def _settings_limits() -> EdgeLimits:
    from app.settings import Settings

    return EdgeLimits.from_settings(Settings())
