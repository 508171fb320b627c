"""The client address: X-Forwarded-For counts only from trusted proxies, read right to left."""

from __future__ import annotations

from ipaddress import ip_network

import pytest

from app.api.platform.client_address import client_address
from app.settings import Settings

PROXIES = (ip_network("10.0.0.0/8"), ip_network("2001:db8:ffff::/48"))


@pytest.mark.parametrize(
    ("peer", "forwarded", "proxies", "expected"),
    [
        # No trusted proxies (the default): the header is never read.
        ("203.0.113.9", ["198.51.100.1"], (), "203.0.113.9"),
        # A peer that is not a trusted proxy: its header is a lie we ignore.
        ("203.0.113.9", ["198.51.100.1"], PROXIES, "203.0.113.9"),
        # A trusted proxy: the address it appended.
        ("10.0.0.5", ["198.51.100.1"], PROXIES, "198.51.100.1"),
        # Whatever the client wrote left of it is ignored.
        ("10.0.0.5", ["1.2.3.4, 198.51.100.1"], PROXIES, "198.51.100.1"),
        # Trusted hops are skipped, right to left, header lines in order.
        ("10.0.0.5", ["1.2.3.4, 198.51.100.1", "10.1.1.1"], PROXIES, "198.51.100.1"),
        ("10.0.0.5", ["1.2.3.4, 198.51.100.1, 10.9.9.9, 10.1.1.1"], PROXIES, "198.51.100.1"),
        # Every hop trusted: the leftmost is the client.
        ("10.0.0.5", ["10.2.2.2, 10.1.1.1"], PROXIES, "10.2.2.2"),
        # A trusted proxy without the header: the proxy itself.
        ("10.0.0.5", [], PROXIES, "10.0.0.5"),
        # Nonsense from a trusted proxy: counted against the last good hop.
        ("10.0.0.5", ["198.51.100.1, nonsense"], PROXIES, "10.0.0.5"),
        # Ports and brackets are dropped; IPv4-mapped IPv6 is IPv4.
        ("10.0.0.5", ["198.51.100.1:4711"], PROXIES, "198.51.100.1"),
        ("10.0.0.5", ["[2001:db8:1:2::7]:443"], PROXIES, "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.9", [], (), "203.0.113.9"),
        # IPv6 clients count by their /64.
        ("2001:db8:1:2:aaaa::1", [], (), "2001:db8:1:2::/64"),
        ("2001:db8:ffff::1", ["2001:db8:1:2::7"], PROXIES, "2001:db8:1:2::/64"),
        (None, ["198.51.100.1"], PROXIES, "unknown"),
    ],
)
def test_client_address(
    peer: str | None, forwarded: list[str], proxies: tuple, expected: str
) -> None:
    assert client_address(peer, forwarded, proxies) == expected


def test_trusted_proxies_setting_reads_a_comma_separated_list_of_cidrs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8, 2001:db8::/32,127.0.0.1")
    assert [str(n) for n in Settings().trusted_proxies] == [
        "10.0.0.0/8",
        "2001:db8::/32",
        "127.0.0.1/32",
    ]
    monkeypatch.setenv("TRUSTED_PROXIES", "")
    assert Settings().trusted_proxies == ()
    monkeypatch.setenv("TRUSTED_PROXIES", "not-a-network")
    with pytest.raises(ValueError):
        Settings()
