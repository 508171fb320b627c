"""A served benchmark's loads come from one address, 127.0.0.1: the service ``bench/``
serves must answer a load of 64 connections that starts while the last one's are still
open, where the edge's default per-address limit (64) would answer the newcomers a 503.

bench/ is imported by name, as ``test_bench_package.py`` does: no test module imports it
(``tests/edge/test_edge_support.py``), and this folder is the one that checks it."""

from __future__ import annotations

import importlib
import socket
from contextlib import ExitStack
from pathlib import Path

from tests.support.servers import free_port

harness = importlib.import_module("bench.harness")

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"


def _status_on_a_new_connection(port: int, stack: ExitStack) -> bytes:
    """The status line of a request on a new connection, which stays open."""
    connection = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
    connection.sendall(REQUEST)
    return connection.recv(4096).split(b"\r\n", 1)[0]


def test_a_benchmark_load_is_not_cut_by_the_per_address_limit(tmp_path: Path) -> None:
    port = free_port()
    env = {"DATABASE_URL": f"sqlite:///{tmp_path}/bench.db", "LOG_LEVEL": "warning"}
    server = harness.serve(harness.app_command(port, 1), env, port, tmp_path / "server.log")
    with server, ExitStack() as open_:
        # Two loads of 64 connections overlapping: the first still open as the second starts.
        statuses = [_status_on_a_new_connection(port, open_) for _ in range(2 * 64)]
    assert set(statuses) == {b"HTTP/1.1 200 OK"}
