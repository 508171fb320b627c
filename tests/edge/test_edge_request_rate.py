"""Past REQUEST_RATE_PER_ADDRESS one client address's requests wait their turn: a client
that floods requests gets no more of a worker than its rate, every request is still
answered, and other addresses are served meanwhile. Other client addresses are other
loopback addresses (127.0.0.2, 127.0.0.3, ...)."""

from __future__ import annotations

import contextlib
import re
import threading
import time
from pathlib import Path

import httpx

from tests.edge.conftest import EdgeServer, edge_server
from tests.support.raw_http import ask, connect, read_all, status_of

RATE_PER_MINUTE = 600  # ten a second
BURST = 5
PACED = {
    "REQUEST_RATE_PER_ADDRESS": str(RATE_PER_MINUTE),
    "REQUEST_BURST_PER_ADDRESS": str(BURST),
}
ROUTE = "/v1/faith-track"
ONE_REQUEST = f"GET {ROUTE} HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n".encode()


def _client(server: EdgeServer, source: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=source)
    return httpx.Client(base_url=server.base_url, transport=transport, timeout=20.0)


def _flood(server: EdgeServer, source: str, connections: int, seconds: float) -> dict:
    """``connections`` keep-alive clients from ``source``, each asking one request after
    another for ``seconds``: the statuses they got, and the longest any request took."""
    statuses: list[int] = []
    longest = [0.0]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def one_client() -> None:
        with _client(server, source) as client:
            while time.monotonic() < deadline:
                start = time.monotonic()
                status = client.get(ROUTE).status_code
                took = time.monotonic() - start
                with lock:
                    statuses.append(status)
                    longest[0] = max(longest[0], took)

    threads = [threading.Thread(target=one_client) for _ in range(connections)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 30)
    return {"statuses": statuses, "longest": longest[0], "seconds": time.monotonic() - began}


def _delayed_count(server: EdgeServer, source: str = "127.0.0.1") -> float:
    with _client(server, source) as client:
        metrics = client.get("/metrics").text
    found = re.search(r"^http_edge_delayed_requests_total (\S+)$", metrics, re.MULTILINE)
    assert found, "no http_edge_delayed_requests_total in /metrics"
    return float(found.group(1))


def test_a_flooding_address_gets_its_rate_every_request_answered_and_others_are_served(
    tmp_path: Path,
) -> None:
    with edge_server(tmp_path, "paced", **PACED) as server:
        victim: list[tuple[int, float]] = []

        def other_address() -> None:
            with _client(server, "127.0.0.3") as client:
                for _ in range(10):
                    start = time.monotonic()
                    victim.append((client.get(ROUTE).status_code, time.monotonic() - start))
                    time.sleep(0.2)

        other = threading.Thread(target=other_address)
        other.start()
        flood = _flood(server, "127.0.0.2", connections=8, seconds=3.0)
        other.join(timeout=30)
        delayed = _delayed_count(server)

    statuses = flood["statuses"]
    # Every request of the flood was answered, none refused: they waited their turn.
    assert set(statuses) == {200}, statuses
    # At most the burst plus the rate over the time the flood lasted (and one request per
    # connection that had started its wait before the end).
    allowed = BURST + RATE_PER_MINUTE / 60 * flood["seconds"] + 8
    assert len(statuses) <= allowed, (len(statuses), allowed, flood)
    # A request waits at most as many intervals as its address has connections waiting.
    assert flood["longest"] < 8 * 60 / RATE_PER_MINUTE + 2.0, flood
    assert delayed >= len(statuses) - BURST - 8, (delayed, len(statuses))
    # The other address was served throughout, at its own rate, unhindered.
    assert [status for status, _ in victim] == [200] * 10, victim
    assert max(took for _, took in victim) < 2.0, victim


def test_closing_every_connection_earns_an_address_no_new_burst(tmp_path: Path) -> None:
    env = {"REQUEST_RATE_PER_ADDRESS": "60", "REQUEST_BURST_PER_ADDRESS": "3"}
    with edge_server(tmp_path, "reconnect", **env) as server:
        with _client(server, "127.0.0.2") as client:
            burst = [client.get(ROUTE).status_code for _ in range(3)]
        start = time.monotonic()
        with _client(server, "127.0.0.2") as client:
            status = client.get(ROUTE).status_code
        waited = time.monotonic() - start
    assert burst == [200, 200, 200]
    assert status == 200
    # The fourth request of a burst of three at one a second waits about a second.
    assert waited >= 0.5, waited


def test_a_request_whose_client_left_while_it_waited_never_reaches_the_app(
    tmp_path: Path,
) -> None:
    env = {"REQUEST_RATE_PER_ADDRESS": "60", "REQUEST_BURST_PER_ADDRESS": "1"}
    with edge_server(tmp_path, "left", **env) as server:
        first = status_of(ask(server.port, ONE_REQUEST, source="127.0.0.2"))
        waiting = connect(server.port, source="127.0.0.2")
        waiting.sendall(ONE_REQUEST)
        time.sleep(0.2)
        waiting.close()  # a second before its turn
        time.sleep(1.5)
        after = status_of(ask(server.port, ONE_REQUEST, source="127.0.0.2"))
        # The access log's line of the last one may come a moment after its answer.
        deadline = time.monotonic() + 10.0
        while _logged(server) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        log = server.log_text()
    assert first == 200
    assert after == 200
    # Two requests ran: the first and the last; the one that left never started.
    assert _count_logged(log) == 2, log[-3000:]


def _logged(server: EdgeServer) -> int:
    return _count_logged(server.log_text())


def _count_logged(log: str) -> int:
    """Requests to ROUTE in the access log."""
    return len(re.findall(rf'"path":"{ROUTE}"', log))


def test_a_request_ended_while_it_waited_never_reaches_the_app(tmp_path: Path) -> None:
    """A body that did not come in time is answered 408 by the edge while its request
    waits its turn; when the turn comes, nothing is started."""
    env = {
        "REQUEST_RATE_PER_ADDRESS": "60",
        "REQUEST_BURST_PER_ADDRESS": "1",
        "BODY_TIMEOUT_SECONDS": "0.3",
    }
    late_body = b"POST /v1/games HTTP/1.1\r\nHost: edge\r\nContent-Length: 40\r\n\r\n{"
    with edge_server(tmp_path, "ended", **env) as server:
        first = status_of(ask(server.port, ONE_REQUEST, source="127.0.0.2"))
        with connect(server.port, source="127.0.0.2") as sock:
            sock.sendall(late_body)
            answer = read_all(sock, timeout=10.0)  # to the edge's end of sending
            # Still open (the edge lingers), past the turn the request had.
            time.sleep(1.5)
        log = server.log_text()
    assert first == 200
    assert status_of(answer) == 408, answer[:300]
    assert '"path":"/v1/games"' not in log, log[-3000:]


def test_a_trusted_proxy_is_not_paced(tmp_path: Path) -> None:
    env = {
        "REQUEST_RATE_PER_ADDRESS": "60",
        "REQUEST_BURST_PER_ADDRESS": "1",
        "TRUSTED_PROXIES": "127.0.0.4/32",
    }
    with edge_server(tmp_path, "proxy", **env) as server:
        # Asked from the proxy's address, not paced either (its readiness probes were).
        before = _delayed_count(server, "127.0.0.4")
        with _client(server, "127.0.0.4") as client:
            statuses = [client.get(ROUTE).status_code for _ in range(5)]
        after = _delayed_count(server, "127.0.0.4")
    assert statuses == [200] * 5
    assert after == before


def test_a_trusted_proxys_clients_are_paced_each_and_refused_past_the_rate(
    tmp_path: Path,
) -> None:
    """Behind a trusted proxy every client shares the proxy's connections, so the edge
    paces each client the proxy names, and refuses (429), rather than holds, a request
    past its rate: one held would hold a connection that carries other clients too."""
    env = {
        "REQUEST_RATE_PER_ADDRESS": "60",  # one a second
        "REQUEST_BURST_PER_ADDRESS": "3",
        "TRUSTED_PROXIES": "127.0.0.4/32",
    }

    def via(client: str) -> dict[str, str]:
        return {"X-Forwarded-For": client}

    with edge_server(tmp_path, "proxied", **env) as server, _client(server, "127.0.0.4") as proxy:
        burst = [proxy.get(ROUTE, headers=via("203.0.113.7")).status_code for _ in range(3)]
        refused = proxy.get(ROUTE, headers={**via("203.0.113.7"), "X-Request-ID": "paced-1"})
        # What the client wrote into the header itself does not make it another client.
        spoofed = proxy.get(ROUTE, headers=via("198.51.100.1, 203.0.113.7"))
        # The connection stays open for the proxy's other clients, and its own requests.
        other = proxy.get(ROUTE, headers=via("203.0.113.8"))
        own = [proxy.get(ROUTE).status_code for _ in range(5)]
        time.sleep(1.2)
        again = proxy.get(ROUTE, headers=via("203.0.113.7"))
        metrics = httpx.get(f"{server.base_url}/metrics").text
        refusals = server.edge_lines(count=2)
    assert burst == [200, 200, 200]
    # Both refusals are on the access log; the first under the client's own request id.
    assert [(line["reason"], line["status"], line["path"]) for line in refusals] == [
        ("request-rate", 429, ROUTE)
    ] * 2, refusals
    assert refusals[0]["request_id"] == "paced-1" and refusals[0]["method"] == "GET"
    assert refused.status_code == 429, refused.text
    assert refused.headers["retry-after"] == "1"
    assert refused.headers["x-request-id"] == "paced-1"
    assert "connection" not in refused.headers
    problem = refused.json()
    assert problem["type"].endswith("/too-many-requests")
    assert "at most 3 at once, then 60 a minute" in problem["detail"]
    assert spoofed.status_code == 429
    assert other.status_code == 200
    assert own == [200] * 5
    assert again.status_code == 200
    assert 'http_edge_refusals_total{reason="request-rate"} 2.0' in metrics


def test_a_proxied_request_refused_with_a_body_to_come_closes_its_connection(
    tmp_path: Path,
) -> None:
    """Kept open, the connection would have the server read the refused request's body
    to its end and drop it, however large it was declared (here 1 GB, sent as fast as
    loopback goes), until the body timeout."""
    env = {
        "REQUEST_RATE_PER_ADDRESS": "60",
        "REQUEST_BURST_PER_ADDRESS": "1",
        "TRUSTED_PROXIES": "127.0.0.4/32",
        "BODY_TIMEOUT_SECONDS": "20",
    }
    head = (
        b"PUT /v1/games/g/faith HTTP/1.1\r\nHost: edge\r\nX-Forwarded-For: 203.0.113.9\r\n"
        b"Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n"
    )
    with edge_server(tmp_path, "proxied-body", **env) as server:
        with _client(server, "127.0.0.4") as proxy:
            first = proxy.get(ROUTE, headers={"X-Forwarded-For": "203.0.113.9"})
        sock = connect(server.port, source="127.0.0.4")
        sock.sendall(head)
        start = time.monotonic()
        sent, closed = 0, False
        chunk = b"x" * 65536
        sock.settimeout(0.5)
        while time.monotonic() - start < 10.0:
            try:
                sock.sendall(chunk)
                sent += len(chunk)
            except OSError:
                closed = True
                break
        answer = b""
        with contextlib.suppress(OSError):
            answer = sock.recv(65536)
        sock.close()
        took = time.monotonic() - start
    assert first.status_code == 200
    assert closed, f"still reading after {took:.1f} s and {sent} bytes"
    # The edge's linger drops at most 1 MiB (linger_bytes) before it closes.
    assert sent < 64 * 1024 * 1024, sent
    if answer:
        assert status_of(answer) == 429, answer[:200]


def test_pipelined_requests_are_paced_one_after_another_and_all_answered(
    tmp_path: Path,
) -> None:
    env = {"REQUEST_RATE_PER_ADDRESS": "600", "REQUEST_BURST_PER_ADDRESS": "2"}
    keep = f"GET {ROUTE} HTTP/1.1\r\nHost: edge\r\n\r\n".encode()
    with (
        edge_server(tmp_path, "pipelined", **env) as server,
        connect(server.port, source="127.0.0.2") as sock,
    ):
        start = time.monotonic()
        sock.sendall(keep * 5 + ONE_REQUEST)
        answers = read_all(sock, timeout=20.0)
        took = time.monotonic() - start
    assert answers.count(b"HTTP/1.1 200 OK\r\n") == 6, answers[:500]
    # Two at once, then four more at ten a second.
    assert took >= 0.35, took
