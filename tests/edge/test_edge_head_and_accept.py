"""``HEAD`` and ``Accept`` against the real server, over raw sockets: a ``HEAD`` is framed
as one (its ``Content-Length`` announced, no body bytes, the connection reusable), even
on the event stream; an ``Accept`` the route cannot answer is a 406 before the route
runs."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from tests.edge.conftest import edge_server
from tests.support.raw_http import connect, head_of, read_all, status_of


def _game(base_url: str) -> tuple[str, str]:
    created = httpx.post(
        f"{base_url}/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]}
    ).json()
    return created["game"]["id"], created["host_token"]


def test_a_head_announces_the_get_s_length_sends_no_body_and_keeps_the_connection(
    tmp_path: Path,
) -> None:
    with edge_server(tmp_path, "head") as server:
        game_id, token = _game(server.base_url)
        get = httpx.get(
            f"{server.base_url}/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}
        )
        sock = connect(server.port)
        # A HEAD, then a GET on the same connection: the GET's answer must come right
        # after the HEAD's head, with no body bytes of the HEAD between them.
        sock.sendall(
            f"HEAD /v1/games/{game_id} HTTP/1.1\r\nHost: edge\r\n"
            f"Authorization: Bearer {token}\r\n\r\n"
            "GET /healthz HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n".encode()
        )
        answer = read_all(sock)
        sock.close()
    _, _, rest = answer.partition(b"\r\n\r\n")
    assert status_of(answer) == 200
    assert head_of(answer)["content-length"] == str(len(get.content))
    assert head_of(answer)["etag"] == get.headers["etag"]
    assert status_of(rest) == 200, answer
    assert rest.endswith(b'{"status":"ok"}')


def test_a_head_on_the_event_stream_ends_at_once(tmp_path: Path) -> None:
    """The stream would run for STREAM_MAX_SECONDS (600 s): its HEAD ends with its head,
    and the stream it opened is let go (live_subscribers back to 0)."""
    with edge_server(tmp_path, "head-stream") as server:
        game_id, token = _game(server.base_url)
        sock = connect(server.port)
        start = time.monotonic()
        sock.sendall(
            f"HEAD /v1/games/{game_id}/events/stream HTTP/1.1\r\nHost: edge\r\n"
            f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n".encode()
        )
        answer = read_all(sock, timeout=15.0)
        took = time.monotonic() - start
        sock.close()
        subscribers = None
        for _ in range(50):
            metrics = httpx.get(f"{server.base_url}/metrics").text
            subscribers = next(
                line for line in metrics.splitlines() if line.startswith("live_subscribers")
            )
            if subscribers.endswith(" 0.0"):
                break
            time.sleep(0.1)
    assert status_of(answer) == 200, answer
    assert head_of(answer)["content-type"].startswith("text/event-stream")
    assert answer.endswith(b"\r\n\r\n"), answer  # the head, and nothing after it
    assert took < 10.0
    assert subscribers is not None and subscribers.endswith(" 0.0"), subscribers


def test_an_accept_the_route_cannot_answer_is_a_406_problem(tmp_path: Path) -> None:
    """The review's probe: ``Accept: application/xml`` was answered 200 JSON."""
    with edge_server(tmp_path, "accept") as server:
        game_id, token = _game(server.base_url)
        answers = {}
        for accept in ("application/xml", "application/json", "text/event-stream"):
            sock = connect(server.port)
            sock.sendall(
                f"GET /v1/games/{game_id} HTTP/1.1\r\nHost: edge\r\nAccept: {accept}\r\n"
                f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n".encode()
            )
            answers[accept] = read_all(sock)
            sock.close()
    assert status_of(answers["application/json"]) == 200
    for refused in ("application/xml", "text/event-stream"):
        assert status_of(answers[refused]) == 406, answers[refused]
        assert head_of(answers[refused])["content-type"] == "application/problem+json"
        assert b"/problems/not-acceptable" in answers[refused]
