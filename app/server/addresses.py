"""Connections counted, and requests paced, per client address, so that one address
cannot take a worker's every connection, nor its every turn of the event loop.

A connection counts against its peer's address as the rate limits count a client
(``app/api/platform/client_address.py``: an IPv6 peer by its /64); a peer among the operator's
``TRUSTED_PROXIES`` is not counted at all, since a proxy carries the connections of many
clients. A proxy's requests are paced by the client each comes from (its
``X-Forwarded-For``, read as the rate limits read it), and refused past the rate rather
than held: a request held would hold the proxy's connection, which the proxy shares among
its clients. The counts live as long as the server that serves the connections.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from functools import lru_cache
from ipaddress import IPv4Network, IPv6Network, ip_network

# Due times that no longer delay anyone are swept once the table has grown by at least
# this many since the last sweep (and by at least as many as that sweep kept, so that a
# sweep costs each request a constant share however many are kept).
_SWEEP_SLACK = 256


class AddressCounts:
    """Open connections, and when each address's next request is due, per client address,
    in one server (one worker process)."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}
        # The theoretical arrival time of each address's next request (GCRA, the same
        # algorithm as the stored rate limits, app/services/client_limits.py), on the
        # monotonic clock. It outlives the address's connections while it is ahead of
        # now, so that closing every connection and opening new ones earns no new burst.
        self.due_times: dict[str, float] = {}
        self.sweep_above = _SWEEP_SLACK

    def pace(self, key: str, interval: float, tolerance: float) -> Pace:
        """What paces the requests of a connection from ``key``: one request per
        ``interval`` seconds on average, and ``tolerance`` seconds' worth more at once."""
        return Pace(self, key, interval, tolerance)

    def admit(self, key: str, now: float, interval: float, tolerance: float) -> float:
        """0 when a request from ``key`` may start at ``now`` (and it is counted as
        started), else the seconds until one may (and it is not counted): the pacing of
        :class:`Pace`, with refusal in place of waiting."""
        due_times = self.due_times
        due = due_times.get(key, now)
        if due < now:
            due = now
        start = due - tolerance
        if start > now:
            return start - now
        due_times[key] = due + interval
        if len(due_times) > self.sweep_above:
            self.sweep(now)
        return 0.0

    def sweep(self, now: float) -> None:
        """Drop the due times that no longer delay anyone."""
        due_times = self.due_times
        for key in [key for key, due in due_times.items() if due <= now]:
            del due_times[key]
        self.sweep_above = 2 * len(due_times) + _SWEEP_SLACK

    def opened(self, key: str) -> int:
        """Count a new connection from ``key``; how many are open from it now."""
        count = self._open.get(key, 0) + 1
        self._open[key] = count
        return count

    def closed(self, key: str) -> None:
        count = self._open.get(key, 0) - 1
        if count > 0:
            self._open[key] = count
        else:
            self._open.pop(key, None)

    def __len__(self) -> int:
        return len(self._open)


# Keyed by the server's state (uvicorn's), which every connection of one server shares.
_COUNTS: weakref.WeakKeyDictionary[object, AddressCounts] = weakref.WeakKeyDictionary()


def counts_of(server_state: object) -> AddressCounts:
    counts = _COUNTS.get(server_state)
    if counts is None:
        counts = _COUNTS[server_state] = AddressCounts()
    return counts


@lru_cache(maxsize=16)
def _networks(proxies: tuple[str, ...]) -> tuple[IPv4Network | IPv6Network, ...]:
    return tuple(ip_network(proxy, strict=False) for proxy in proxies)


def counted_as(host: str | None, trusted_proxies: Sequence[str]) -> str | None:
    """The address a connection from ``host`` counts against; None for a trusted proxy,
    or a peer without an address (a Unix socket)."""
    # Imported here: this module is loaded when a worker unpickles its configuration,
    # before the app (which client_address belongs to) is.
    from app.api.platform.client_address import address_key, is_trusted, parse_address

    address = parse_address(host) if host else None
    if address is None or is_trusted(address, _networks(tuple(trusted_proxies))):
        return None
    return address_key(address)


# The longest X-Forwarded-For (all its values) whose client is cached: a proxy's usual
# header names a client or two, and a longer one, which a client can make unique on every
# request, would fill the cache with what no later request asks for.
_CACHED_FORWARDED_CHARS = 128


def forwarded_client(
    proxy: str, forwarded_for: tuple[str, ...], trusted_proxies: tuple[str, ...]
) -> str | None:
    """What a request that a trusted ``proxy`` forwarded counts against: the client its
    ``X-Forwarded-For`` values name (as the rate limits read them; an IPv6 one by its /64),
    or None when that is a trusted proxy itself (a request the proxy makes of its own,
    such as a health check, or a header that names no client). Cached for a short
    header: a proxy forwards the same few clients' requests over and over."""
    if sum(map(len, forwarded_for)) <= _CACHED_FORWARDED_CHARS:
        return _cached_forwarded_client(proxy, forwarded_for, trusted_proxies)
    return _forwarded_client(proxy, forwarded_for, trusted_proxies)


def _forwarded_client(
    proxy: str, forwarded_for: tuple[str, ...], trusted_proxies: tuple[str, ...]
) -> str | None:
    from app.api.platform.client_address import address_key, client_ip, is_trusted

    proxies = _networks(trusted_proxies)
    client = client_ip(proxy, forwarded_for, proxies)
    if client is None or is_trusted(client, proxies):
        return None
    return address_key(client)


# At most this many headers' clients (each header at most _CACHED_FORWARDED_CHARS long).
_cached_forwarded_client = lru_cache(maxsize=1024)(_forwarded_client)


class Pace:
    """The request rate of one connection's address (GCRA on ``AddressCounts.due_times``),
    bound once per connection, so that checking a request costs one call."""

    __slots__ = ("_counts", "_interval", "_key", "_tolerance")

    def __init__(self, counts: AddressCounts, key: str, interval: float, tolerance: float):
        self._counts = counts
        self._key = key
        self._interval = interval
        self._tolerance = tolerance

    def start_delay(self, now: float) -> float:
        """Seconds until a request that comes at ``now`` may start (0: at once); it is
        counted as started then. A request waits instead of being refused: an address
        has at most one waiting per connection it holds, so no wait grows past that many
        intervals."""
        counts = self._counts
        due_times = counts.due_times
        due = due_times.get(self._key, now)
        if due < now:
            due = now
        due_times[self._key] = due + self._interval
        if len(due_times) > counts.sweep_above:
            counts.sweep(now)
        start = due - self._tolerance
        return start - now if start > now else 0.0
