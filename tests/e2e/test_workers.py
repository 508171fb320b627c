"""``python -m app --workers 2``: both workers serve one database, and /metrics sums what
every worker counted (prometheus-client's multiprocess mode)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from tests.support.servers import Server, running


def test_two_workers_serve_and_metrics_count_every_request(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path}/workers.db", tmp_path, "workers", workers=2)
    with running(server), httpx.Client(base_url=server.base_url) as client:
        games = [
            client.post("/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]})
            for _ in range(10)
        ]
        assert all(r.status_code == 201 for r in games), [r.text for r in games]
        for _ in range(30):
            # A fresh connection each time, so the kernel spreads them over the workers.
            assert httpx.get(f"{server.base_url}/healthz").status_code == 200
        metrics = client.get("/metrics").text
    served = re.search(
        r'http_requests_total\{method="GET",route="/healthz",status="200"\} (\d+)', metrics
    )
    created = re.search(
        r'http_requests_total\{method="POST",route="/v1/games",status="201"\} (\d+)', metrics
    )
    assert served is not None and float(served.group(1)) == 30, metrics
    assert created is not None and float(created.group(1)) == 10, metrics
