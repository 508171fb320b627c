"""A client that goes away is not a server error: 499 in the metrics, info in the log."""

from __future__ import annotations

from pathlib import Path

from tests.edge.conftest import edge_server
from tests.support.edge_attacks import client_disconnects


def test_a_client_disconnect_counts_as_499_and_logs_no_error(tmp_path: Path) -> None:
    with edge_server(tmp_path, "disconnect") as server:
        figures = client_disconnects(server.port, count=5)
        log = server.log_text()
    assert figures["counted_by_status"] == {"499": 5.0}, figures
    assert "Traceback" not in log
    assert not [line for line in log.splitlines() if line.startswith("ERROR")], log
    assert log.count("client disconnected during POST /v1/calculations/vatican-report") == 5
