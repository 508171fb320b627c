"""Past MAX_CONNECTIONS a worker sheds load with a 503 problem, not uvicorn's plain text."""

from __future__ import annotations

from pathlib import Path

from tests.edge.conftest import edge_server
from tests.support.edge_attacks import over_connection_limit
from tests.support.probes import probe


def test_connections_past_the_limit_get_a_503_problem_with_retry_after(tmp_path: Path) -> None:
    with edge_server(tmp_path, "limit", MAX_CONNECTIONS="10", RETRY_AFTER_SECONDS="3") as server:
        figures = over_connection_limit(server.port, held=10, extra=3)
        assert figures["statuses"] == {"503": 3}, figures
        assert figures["retry_after"] == 3
        assert figures["problem_type"].endswith("/service-unavailable")
        # Once the held connections are gone, new ones are served again.
        assert probe(server.port)[0] == 200
