"""The real server shows /metrics only to its operators' networks: here 127.0.0.1 alone,
so that 127.0.0.2 stands for another network (the review read them from anywhere)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.edge.conftest import edge_server
from tests.support.raw_http import ask, status_of

METRICS = b"GET /metrics HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n"


def test_metrics_are_a_404_to_other_networks_and_served_to_the_operators(
    tmp_path: Path,
) -> None:
    with edge_server(tmp_path, "metrics", METRICS_NETWORKS="127.0.0.1/32") as server:
        outside = ask(server.port, METRICS, source="127.0.0.2")
        inside = ask(server.port, METRICS, source="127.0.0.1")
    assert status_of(outside) == 404, outside[:300]
    problem = json.loads(outside.partition(b"\r\n\r\n")[2])
    assert problem["type"].endswith("/not-found")
    assert b"http_requests_total" not in outside
    assert status_of(inside) == 200
    assert b"http_requests_total" in inside
