"""Headers are bounded: size and count -> 431 problem; endless headers cost no memory."""

from __future__ import annotations

import json
from pathlib import Path

from tests.edge.conftest import edge_server
from tests.support.edge_attacks import complete_huge_header, endless_headers, many_headers
from tests.support.raw_http import connect, read_all

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: edge\r\n"


def _ask(port: int, head: bytes) -> tuple[int, dict[str, str], bytes]:
    sock = connect(port)
    sock.sendall(head)
    data = read_all(sock, 65536, 10.0)
    sock.close()
    head_part, _, body = data.partition(b"\r\n\r\n")
    lines = head_part.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body


def test_headers_over_the_byte_limit_are_a_431_problem(tmp_path: Path) -> None:
    with edge_server(tmp_path, "bytes", MAX_HEADER_BYTES="4096") as server:
        status, headers, body = _ask(server.port, REQUEST + b"X-Big: " + b"a" * 5000 + b"\r\n\r\n")
        assert status == 431
        assert headers["content-type"] == "application/problem+json"
        assert headers["connection"] == "close"
        assert "x-request-id" in headers
        problem = json.loads(body)
        assert problem["type"].endswith("/request-header-fields-too-large")
        assert problem["status"] == 431
        assert "4096 bytes" in problem["detail"]
        # Just within the limit is served.
        status, _, _ = _ask(server.port, REQUEST + b"X-Big: " + b"a" * 3900 + b"\r\n\r\n")
        assert status == 200
        # The refusal is on the access log under the request id it carried.
        (line,) = server.edge_lines()
    assert line == {
        "event": "edge",
        "reason": "header-fields-too-large",
        "method": None,
        "path": None,
        "status": 431,
        "request_id": headers["x-request-id"],
    }


def test_too_many_header_fields_are_a_431_problem(tmp_path: Path) -> None:
    with edge_server(tmp_path, "count", MAX_HEADERS="20") as server:
        fields = b"".join(b"X-F%d: v\r\n" % i for i in range(21))
        status, _, body = _ask(server.port, REQUEST + fields + b"\r\n")
        assert status == 431
        assert json.loads(body)["type"].endswith("/request-header-fields-too-large")
        fields = b"".join(b"X-F%d: v\r\n" % i for i in range(18))  # + Host: 19 fields
        status, _, _ = _ask(server.port, REQUEST + fields + b"\r\n")
        assert status == 200


def test_the_default_limits_refuse_a_16_mib_header_and_10000_fields(tmp_path: Path) -> None:
    with edge_server(tmp_path, "defaults") as server:
        assert complete_huge_header(server.port)["status"] == 431
        assert many_headers(server.port)["status"] == 431


def test_100_endless_headers_keep_the_worker_small_and_others_served(tmp_path: Path) -> None:
    """The issue's attack: 100 connections each sending an 8 MB header that never ends
    (bounded here to 10 s). Under 150 MiB RSS; another client is answered meanwhile
    (within a generous 5 s: the machine is loaded)."""
    with edge_server(tmp_path, "endless") as server:
        figures = endless_headers(server.port, server.pid, seconds=10.0, rss_guard=400.0)
    assert figures["rss_peak_mib"] < 150, figures
    assert figures["other_client"][0] == 200, figures
    assert figures["other_client"][1] < 5.0, figures
    assert figures["attackers_cut"] == 100, figures
