"""``/metrics`` answers its operators only: clients in ``METRICS_NETWORKS`` (loopback by
default; behind a trusted proxy, the proxy's client) or holding ``METRICS_TOKEN``. Anyone
else is told there is nothing there: the 404 of a path that does not exist."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from app.main import create_app
from app.settings import Settings

OUTSIDE = ("203.0.113.7", 40000)


@asynccontextmanager
async def _client(
    client: tuple[str, int] = ("127.0.0.1", 40000), **settings: Any
) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url="sqlite:///:memory:", **settings))
    transport = httpx.ASGITransport(app=app, client=client)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c
    app.state.live_hub.stop()
    app.state.db.dispose()


def _is_prometheus(response: httpx.Response) -> bool:
    return response.status_code == 200 and "http_requests_total" in response.text


async def _refused_like_nothing_there(http: httpx.AsyncClient) -> None:
    response = await http.get("/metrics")
    nothing = await http.get("/metricz")
    assert response.status_code == nothing.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"] == nothing.json()["type"]
    assert response.json()["detail"] == "No route or resource at /metrics"
    assert "http_requests_total" not in response.text
    assert (await http.head("/metrics")).status_code == 404


async def test_loopback_reads_the_metrics_by_default() -> None:
    for peer in ("127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"):
        async with _client((peer, 40000)) as http:
            assert _is_prometheus(await http.get("/metrics")), peer


async def test_another_network_is_told_there_is_nothing_there() -> None:
    for peer in ("203.0.113.7", "10.1.2.3", "2001:db8::1", "192.168.1.20"):
        async with _client((peer, 40000)) as http:
            await _refused_like_nothing_there(http)


@pytest.mark.parametrize(
    ("authorization", "allowed"),
    [
        ("Bearer s3cret-metrics-token", True),
        ("bearer s3cret-metrics-token", True),
        ("Bearer wrong", False),
        ("Bearer s3cret-metrics-token-and-more", False),
        ("Basic s3cret-metrics-token", False),
        ("", False),
    ],
)
async def test_the_metrics_token_opens_them_from_anywhere(
    authorization: str, allowed: bool
) -> None:
    async with _client(OUTSIDE, metrics_token="s3cret-metrics-token") as http:
        headers = {"Authorization": authorization} if authorization else {}
        response = await http.get("/metrics", headers=headers)
        assert _is_prometheus(response) is allowed
        assert response.status_code == (200 if allowed else 404)


async def test_the_networks_are_the_operators_choice() -> None:
    async with _client(OUTSIDE, metrics_networks="203.0.113.0/24") as http:
        assert _is_prometheus(await http.get("/metrics"))
    async with _client(metrics_networks="", metrics_token="t0ken") as http:  # token only
        await _refused_like_nothing_there(http)
        response = await http.get("/metrics", headers={"Authorization": "Bearer t0ken"})
        assert _is_prometheus(response)


async def test_behind_a_trusted_proxy_the_proxy_s_client_is_who_asks() -> None:
    """A proxy on the same host (loopback) must not open the metrics to the internet."""
    async with _client(trusted_proxies="127.0.0.1/32") as http:
        response = await http.get("/metrics", headers={"X-Forwarded-For": "203.0.113.7"})
        assert response.status_code == 404
        response = await http.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"})
        assert _is_prometheus(response)
    # From an untrusted peer, X-Forwarded-For is not believed.
    async with _client(OUTSIDE) as http:
        response = await http.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"})
        assert response.status_code == 404
