"""A request's body must arrive within the body timeout of its head, or the request is
answered 408 and its connection closed: a client that announces a body and sends it
slowly (or never) holds nothing for longer than that, not even a write slot.

The bounds asserted are generous, as in test_edge_timeouts.py: only "cut at all, not long
after the setting" matters here.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import httpx

from tests.edge.conftest import edge_server
from tests.support.raw_http import connect, read_all, status_of

SCORES = b'{"players": [{"id": "a", "victory_points": 3}]}'


def _head(method: str, path: str, length: int, *extra: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: edge", "Content-Type: application/json"]
    lines += [f"Content-Length: {length}", *extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _answer_and_close(sock: socket.socket, seconds: float) -> tuple[bytes, float]:
    """What the server sent until it closed ``sock``, and when that was."""
    start = time.monotonic()
    answer = read_all(sock, timeout=seconds)
    return answer, time.monotonic() - start


def test_a_body_that_stops_arriving_is_answered_408_and_the_connection_closed(
    tmp_path: Path,
) -> None:
    with edge_server(tmp_path, "body", BODY_TIMEOUT_SECONDS="1") as server:
        sock = connect(server.port)
        sock.sendall(_head("POST", "/v1/calculations/final-scores", len(SCORES)) + SCORES[:10])
        answer, took = _answer_and_close(sock, 10.0)
        sock.close()
        # A whole body sent at once is unaffected, and so is the next connection.
        fresh = connect(server.port)
        fresh.sendall(
            _head("POST", "/v1/calculations/final-scores", len(SCORES), "Connection: close")
            + SCORES
        )
        assert status_of(read_all(fresh)) == 200
        fresh.close()
        metrics = httpx.get(f"{server.base_url}/metrics").text
        log = server.log_text()
    assert status_of(answer) == 408, answer[:300]
    head, _, payload = answer.partition(b"\r\n\r\n")
    assert b"connection: close" in head.lower()
    problem = json.loads(payload)
    assert problem["type"] == "/problems/request-timeout"
    assert "1 second" in problem["detail"]
    assert 0.5 < took < 8.0
    assert 'http_edge_refusals_total{reason="body-timeout"} 1.0' in metrics
    # The app, told the client had gone, records what the client was answered: a 408,
    # not a client's 499, in the access log and in the requests' counter.
    logged = [ln for ln in log.splitlines() if '"status":408,' in ln]
    assert len(logged) == 1 and '"path":"/v1/calculations/final-scores"' in logged[0], log
    # Under the request id the client was answered (the edge made it: none was sent).
    answered_id = head.decode("latin-1").lower().split("x-request-id: ")[1].split("\r\n")[0]
    assert f'"request_id":"{answered_id}"' in logged[0], (answered_id, logged)
    assert "client disconnected" not in log
    assert (
        'http_requests_total{method="POST",route="/v1/calculations/final-scores",status="408"} 1.0'
    ) in metrics
    assert 'status="499"' not in metrics


def test_a_body_sent_slowly_is_cut_when_the_timeout_runs_out(tmp_path: Path) -> None:
    """A byte every 0.3 s keeps the connection busy: the timeout counts from the head, not
    from the last byte, so it still ends."""
    with edge_server(tmp_path, "trickle", BODY_TIMEOUT_SECONDS="1.5") as server:
        sock = connect(server.port)
        start = time.monotonic()
        sock.sendall(_head("POST", "/v1/calculations/final-scores", len(SCORES)))
        answer = b""
        for byte in SCORES:
            time.sleep(0.3)
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            sock.setblocking(False)
            try:
                answer += sock.recv(65536)
            except BlockingIOError:
                pass
            except OSError:
                break
            finally:
                sock.setblocking(True)
            if answer:
                break
        took = time.monotonic() - start
        sock.close()
    assert status_of(answer) == 408, answer[:300]
    assert 1.0 < took < 8.0


def test_stalled_bodies_do_not_keep_the_write_slots(tmp_path: Path) -> None:
    """Three clients that never send the body of a change (with the game's token) are
    answered 408 at the body timeout, and a change sent meanwhile is answered at once:
    they hold no write slot while their body is on its way (tests/edge/
    test_edge_write_admission.py has the tokenless attack, with a long body timeout)."""
    env = {"BODY_TIMEOUT_SECONDS": "1", "MAX_CONCURRENT_WRITES": "3", "DB_POOL_TIMEOUT_MS": "6000"}
    with edge_server(tmp_path, "slots", **env) as server:
        created = httpx.post(
            f"{server.base_url}/v1/games",
            json={"players": [{"name": "Anna"}, {"name": "Bruno"}]},
        ).json()
        game_id, token = created["game"]["id"], created["host_token"]
        path = f"/v1/games/{game_id}/players/p1/faith"
        auth = f"Authorization: Bearer {token}"
        stalled = []
        for _ in range(3):
            sock = connect(server.port)
            sock.sendall(_head("PUT", path, 20, auth))  # and no body
            stalled.append(sock)
        time.sleep(0.3)  # the three hold the slots
        start = time.monotonic()
        change = httpx.put(
            f"{server.base_url}{path}",
            json={"faith": 4},
            headers={"Authorization": f"Bearer {token}"},
            timeout=20,
        )
        took = time.monotonic() - start
        answers = [status_of(read_all(sock)) for sock in stalled]
        for sock in stalled:
            sock.close()
    assert change.status_code == 200, change.text
    # Not held up by the stalled ones (whose 408 comes 1 s after their heads).
    assert took < 2.5
    assert answers == [408, 408, 408]


def test_a_body_waiting_behind_a_pipelined_answer_is_not_timed_out(tmp_path: Path) -> None:
    """While an earlier request of the connection is answered (a live stream here, 3 s),
    the edge reads nothing more: a body still on its way then is the server's delay, not
    the client's, and its request is answered once its turn comes."""
    env = {"BODY_TIMEOUT_SECONDS": "1", "STREAM_MAX_SECONDS": "3"}
    with edge_server(tmp_path, "pipelined", **env) as server:
        created = httpx.post(
            f"{server.base_url}/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]}
        ).json()
        stream = (
            f"GET /v1/games/{created['game']['id']}/events/stream HTTP/1.1\r\nHost: edge\r\n"
            f"Authorization: Bearer {created['host_token']}\r\n\r\n"
        ).encode()
        calculation = _head(
            "POST", "/v1/calculations/final-scores", len(SCORES), "Connection: close"
        )
        sock = connect(server.port)
        sock.sendall(stream + calculation + SCORES[:10])
        time.sleep(1.5)  # past the body timeout, while the stream is still answered
        sock.sendall(SCORES[10:])
        answer = read_all(sock, timeout=15.0)
        sock.close()
    assert b"HTTP/1.1 408" not in answer
    last = answer[answer.rindex(b"HTTP/1.1 ") :]
    assert status_of(last) == 200, answer[-500:]
    assert b'"player_id":"a"' in last
