"""Bytes the parser cannot read as a request get a 400 problem, as every other refusal of
the edge, and the connection closes; behind an answer under way, nothing is slipped in."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.edge.conftest import EdgeServer, edge_server
from tests.support.raw_http import ask, connect, head_of, read_all, status_of

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n"

NOT_HTTP = {
    # both framings at once: the classic request-smuggling ask
    "length-and-chunked": (
        b"POST /v1/games HTTP/1.1\r\nHost: edge\r\nContent-Length: 4\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    ),
    "space-in-a-header-name": b"GET /healthz HTTP/1.1\r\nHost: edge\r\nX Bad: 1\r\n\r\n",
    "no-request-line": b"HELLO\r\n\r\n",
    "connect": b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
}


def test_bytes_that_are_not_a_request_are_a_400_problem(tmp_path: Path) -> None:
    with edge_server(tmp_path, "bad") as server:
        request_ids = []
        for name, raw in NOT_HTTP.items():
            sock = connect(server.port)
            sock.sendall(raw)
            data = read_all(sock, 65536, 10.0)  # until the server closes
            sock.close()
            assert status_of(data) == 400, (name, data[:200])
            head = head_of(data)
            assert head["content-type"] == "application/problem+json", name
            assert head["connection"] == "close", name
            request_ids.append(head["x-request-id"])
            problem = json.loads(data.partition(b"\r\n\r\n")[2])
            assert problem["type"].endswith("/bad-request"), (name, problem)
            assert problem["status"] == 400
        metrics = ask(
            server.port, b"GET /metrics HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n"
        )
        # Each answer is on the access log under the request id it carried.
        lines = server.edge_lines(count=len(NOT_HTTP))
    assert [line["request_id"] for line in lines] == request_ids, lines
    for line in lines:
        assert line == {
            "event": "edge",
            "reason": "bad-request",
            "method": None,
            "path": None,
            "status": 400,
            "request_id": line["request_id"],
        }
    counted = f'http_edge_refusals_total{{reason="bad-request"}} {len(NOT_HTTP)}.0'.encode()
    assert counted in metrics, metrics[-2000:]


@pytest.mark.parametrize("after", [NOT_HTTP["no-request-line"], b"GET /healthz HTTP/9.9\r\n\r\n"])
def test_a_bad_request_behind_an_answer_under_way_ends_the_connection_after_it(
    tmp_path: Path, after: bytes
) -> None:
    """uvicorn wrote its 400 at once, ahead of the answer to the request before."""
    with edge_server(tmp_path, "bad-behind") as server:
        sock = connect(server.port)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n" + after)
        data = read_all(sock, 65536, 10.0)
        sock.close()
    assert status_of(data) == 200, data[:200]
    assert data.count(b"HTTP/1.1 ") == 1, data[:400]


# A chunked body whose second chunk's size is not a number: the parser stops inside the
# body, and the rest of it can never be read.
BROKEN_BODY = b'4\r\n{"ga\r\nzz\r\nins": []}\r\n0\r\n\r\n'


def _broken_post(path: bytes) -> bytes:
    return (
        b"POST " + path + b" HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )


@pytest.mark.parametrize("writes", ["one write", "head, then body"])
def test_a_body_the_parser_stops_inside_is_a_400_at_once(tmp_path: Path, writes: str) -> None:
    """The app waited for the rest of the body, which never came: no answer, and the
    connection held until the client closed it (in one write, not even the body timeout
    ran)."""
    head = _broken_post(b"/v1/calculations/gains").replace(
        b"\r\n\r\n", b"\r\nX-Request-ID: broken-body-1\r\n\r\n"
    )
    with edge_server(tmp_path, "bad-body") as server:
        sock = connect(server.port)
        if writes == "one write":
            sock.sendall(head + BROKEN_BODY)
        else:
            sock.sendall(head)
            time.sleep(0.2)
            sock.sendall(BROKEN_BODY)
        # Well within the body timeout (10 s): the answer does not wait for it.
        data = read_all(sock, 65536, 5.0)
        sock.close()
        assert status_of(data) == 400, data[:200]
        assert head_of(data)["connection"] == "close"
        assert json.loads(data.partition(b"\r\n\r\n")[2])["type"].endswith("/bad-request")
        # The client's own request id, as every other answer echoes it.
        assert head_of(data)["x-request-id"] == "broken-body-1"
        # The app let go of the request; it is logged with the 400 the client was
        # answered (not as a client's 499) and its id, and the server serves on.
        line = _access_line("/v1/calculations/gains", 400) + '"duration_ms":'
        assert _logged(server, line), server.log_tail()
        logged = next(ln for ln in server.log_text().splitlines() if line in ln)
        assert '"request_id":"broken-body-1"' in logged, logged
        assert '"status":499' not in server.log_text()
        assert status_of(ask(server.port, HEALTHZ)) == 200


def test_a_body_the_parser_stops_inside_behind_an_answer_gets_its_400_after_it(
    tmp_path: Path,
) -> None:
    """Queued behind the first answer, the request with the broken body was started once
    that answer was written, and waited for its body for ever."""
    with edge_server(tmp_path, "bad-body-behind") as server:
        sock = connect(server.port)
        sock.sendall(
            b"GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n"
            + _broken_post(b"/v1/calculations/gains")
            + BROKEN_BODY
        )
        data = read_all(sock, 65536, 5.0)
        sock.close()
    answers = data.split(b"HTTP/1.1 ")[1:]
    assert [status_of(b"HTTP/1.1 " + answer) for answer in answers] == [200, 400], data[:600]
    assert json.loads(data.rpartition(b"\r\n\r\n")[2])["instance"] == "/v1/calculations/gains"


def _access_line(path: str, status: int) -> str:
    """The part of a request's access line that says its path and its status."""
    return f'"path":"{path}","status":{status},'


def _logged(server: EdgeServer, text: str, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while text not in server.log_text():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_broken_body_sent_without_waiting_for_100_continue_is_no_error(
    tmp_path: Path,
) -> None:
    """The client asked for 100 Continue and sent its (broken) body anyway: the app, told
    the client was gone, still had uvicorn write the 100 Continue on reading, after the
    edge's 400 had ended the sending side, and logged that as an error (a 500)."""
    head = _broken_post(b"/v1/calculations/gains").replace(
        b"\r\n\r\n", b"\r\nExpect: 100-continue\r\n\r\n"
    )
    with edge_server(tmp_path, "bad-body-expect") as server:
        sock = connect(server.port)
        sock.sendall(head + BROKEN_BODY)
        data = read_all(sock, 65536, 5.0)
        sock.close()
        assert status_of(data) == 400, data[:200]
        assert _logged(server, _access_line("/v1/calculations/gains", 400)), server.log_tail()
        log = server.log_text()
    assert "Traceback" not in log and "ERROR" not in log, log[-3000:]
