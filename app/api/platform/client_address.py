"""Who is asking: the client address the per-client limits count against.

The peer of the connection is the client, unless it is one of the operator's
``TRUSTED_PROXIES``: then ``X-Forwarded-For`` is read right to left (each proxy appends the
address it saw), skipping the trusted hops, and the first address that is not trusted is
the client. Anything left of it was written by the client itself and is ignored, so a
client cannot pick its own address by sending the header.

An IPv6 client is counted by its /64: one host usually holds a whole /64 and could
otherwise take a fresh address for every request.
"""

from __future__ import annotations

from collections.abc import Sequence
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address
from typing import Annotated

from fastapi import Depends, Request

Network = IPv4Network | IPv6Network
IPAddress = IPv4Address | IPv6Address

UNKNOWN = "unknown"  # no peer address at all (e.g. a Unix socket)


def parse_address(text: str) -> IPAddress | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [2001:db8::1]:443
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # 192.0.2.1:443
        text = text.partition(":")[0]
    try:
        address = ip_address(text)
    except ValueError:
        return None
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def is_trusted(address: IPAddress, proxies: Sequence[Network]) -> bool:
    return any(address.version == net.version and address in net for net in proxies)


def address_key(address: IPAddress) -> str:
    """What a client is counted by: its address, an IPv6 one as its /64."""
    if isinstance(address, IPv6Address):
        return str(IPv6Network((address, 64), strict=False))
    return str(address)


def client_ip(
    peer: str | None, forwarded_for: Sequence[str], proxies: Sequence[Network]
) -> IPAddress | None:
    """The client's address, from the connection's ``peer`` and the ``X-Forwarded-For``
    header values in the order received; None when the peer has none that parses."""
    client = parse_address(peer) if peer else None
    if client is None or not is_trusted(client, proxies):
        return client
    hops = [hop for value in forwarded_for for hop in value.split(",")]
    for hop in reversed(hops):
        address = parse_address(hop)
        if address is None:
            break  # a proxy we trust wrote nonsense: count the request against that proxy
        client = address
        if not is_trusted(client, proxies):
            break
    return client


def client_address(
    peer: str | None, forwarded_for: Sequence[str], proxies: Sequence[Network]
) -> str:
    """The client's address (an IPv6 one as its /64), from the connection's ``peer`` and the
    ``X-Forwarded-For`` header values in the order received."""
    client = client_ip(peer, forwarded_for, proxies)
    if client is None:
        return UNKNOWN if not peer else peer[:64]
    return address_key(client)


def request_client_ip(request: Request) -> IPAddress | None:
    """The address of the client of ``request`` (behind a trusted proxy, the proxy's
    client)."""
    proxies: Sequence[Network] = request.app.state.settings.trusted_proxies
    peer = request.client.host if request.client else None
    forwarded = request.headers.getlist("x-forwarded-for") if proxies else []
    return client_ip(peer, forwarded, proxies)


async def get_client_address(request: Request) -> str:
    proxies: Sequence[Network] = request.app.state.settings.trusted_proxies
    peer = request.client.host if request.client else None
    forwarded = request.headers.getlist("x-forwarded-for") if proxies else []
    return client_address(peer, forwarded, proxies)


ClientAddress = Annotated[str, Depends(get_client_address)]
