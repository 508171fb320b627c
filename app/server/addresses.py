"""Connections counted per client address, so that one address cannot take a worker's
every connection.

A connection counts against its peer's address as the rate limits count a client
(``app/api/platform/client_address.py``: an IPv6 peer by its /64); a peer among the operator's
``TRUSTED_PROXIES`` is not counted at all, since a proxy carries the connections of many
clients. The counts live as long as the server that serves the connections.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from functools import lru_cache
from ipaddress import IPv4Network, IPv6Network, ip_network


class AddressCounts:
    """Open connections per client address, in one server (one worker process)."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}

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
