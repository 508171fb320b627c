"""deploy/nginx in front of real replicas (``python -m app`` on 127.0.0.1), with Debian's
nginx on the host: which requests it sends again, the client address it passes on, its
edge limits in the service's problem format, and event streams through it."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.conftest import _create_database, _drop_database, _with_database
from tests.deploy.proxy import NGINX_DIR, Nginx, upstream_block
from tests.support.servers import Server, free_port, running

pytestmark = pytest.mark.postgres

GAME = {"players": [{"name": "Anna"}, {"name": "Bruno"}, {"name": "Carla"}], "seed": 42}


@pytest.fixture(scope="module")
def replica(tmp_path_factory: pytest.TempPathFactory, postgres_server_url: str) -> Iterator[Server]:
    """One replica for the module's tests, on a throwaway database of its own."""
    name = _create_database(postgres_server_url)
    server = Server(
        _with_database(postgres_server_url, name),
        tmp_path_factory.mktemp("replica"),
        "replica",
        # One token's hundred streams stand for a hundred clients in the edge limits' test.
        env={"TRUSTED_PROXIES": "127.0.0.1/32", "MAX_STREAMS_PER_SEAT": "100"},
    )
    try:
        with running(server):
            yield server
    finally:
        _drop_database(postgres_server_url, name)


def test_the_containers_main_file_is_valid(tmp_path: Path, nginx_binary: str) -> None:
    """deploy/nginx/nginx.conf as the image has it, with its included files where the
    image puts them here and the replicas' names as addresses this host can resolve."""
    included = tmp_path / "vatican-report"
    included.mkdir()
    for name in ("http.conf", "server.conf"):
        (included / name).write_text((NGINX_DIR / name).read_text())
    (included / "upstream.conf").write_text(upstream_block(["127.0.0.1:1", "127.0.0.1:2"]))
    main = (NGINX_DIR / "nginx.conf").read_text()
    main = main.replace("/etc/nginx/vatican-report/", f"{included}/")
    main = main.replace("pid /run/nginx.pid;", f"pid {tmp_path / 'nginx.pid'};")
    (tmp_path / "nginx.conf").write_text(main)
    done = subprocess.run(
        [
            nginx_binary,
            "-t",
            "-e",
            str(tmp_path / "error.log"),
            "-p",
            str(tmp_path),
            "-c",
            str(tmp_path / "nginx.conf"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr


class ClosingUpstream:
    """A replica that reads a request whole, then closes without answering (one that
    died with the request in hand): counts what it was sent."""

    def __init__(self) -> None:
        self.port = free_port()
        self.received: list[bytes] = []
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                while len(body) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    body += chunk
                self.received.append(head.split(b"\r\n", 1)[0])

    def close(self) -> None:
        self._listener.close()


def games_in(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM games").fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize(
    ("keyed", "sent_twice"), [(True, True), (False, False)], ids=["with-key", "without-key"]
)
def test_a_post_goes_to_another_replica_only_with_an_idempotency_key(
    tmp_path: Path, nginx_binary: str, replica: Server, keyed: bool, sent_twice: bool
) -> None:
    before = games_in(replica.database_url)
    dying = ClosingUpstream()
    # The real replica as a backup: nginx tries the dying one first, always.
    upstreams = [f"127.0.0.1:{dying.port}", f"127.0.0.1:{replica.port} backup"]
    try:
        with Nginx(nginx_binary, tmp_path / "nginx", upstreams) as proxy:
            headers = {"Idempotency-Key": str(uuid.uuid4())} if keyed else {}
            answer = httpx.post(f"{proxy.base_url}/v1/games", json=GAME, headers=headers)
    finally:
        dying.close()
    assert dying.received == [b"POST /v1/games HTTP/1.1"]
    if sent_twice:
        assert answer.status_code == 201, answer.text
        assert games_in(replica.database_url) == before + 1
    else:
        # Sent once, to the replica that died with it: no second game anywhere.
        assert answer.status_code == 503
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.json()["type"] == "/problems/service-unavailable"
        assert answer.headers["retry-after"] == "1"
        assert games_in(replica.database_url) == before


def test_reads_go_to_another_replica(tmp_path: Path, nginx_binary: str, replica: Server) -> None:
    dying = ClosingUpstream()
    upstreams = [f"127.0.0.1:{dying.port}", f"127.0.0.1:{replica.port} backup"]
    try:
        with Nginx(nginx_binary, tmp_path / "nginx", upstreams) as proxy:
            answer = httpx.get(f"{proxy.base_url}/v1/faith-track")
    finally:
        dying.close()
    assert dying.received == [b"GET /v1/faith-track HTTP/1.1"]
    assert answer.status_code == 200


def test_the_service_counts_the_client_address_nginx_passes_on(
    tmp_path: Path, nginx_binary: str, postgres_url: str
) -> None:
    # Two creations at once per client address, then one a minute.
    limits = {"GAME_CREATION_RATE": "1", "GAME_CREATION_BURST": "2"}
    server = Server(
        postgres_url, tmp_path, "limited", env={"TRUSTED_PROXIES": "127.0.0.1/32", **limits}
    )
    with (
        running(server),
        Nginx(nginx_binary, tmp_path / "nginx", [f"127.0.0.1:{server.port}"]) as proxy,
    ):

        def create(source: str, forwarded_for: str | None = None) -> int:
            headers = {"Idempotency-Key": str(uuid.uuid4())}
            if forwarded_for:
                headers["X-Forwarded-For"] = forwarded_for
            transport = httpx.HTTPTransport(local_address=source)
            with httpx.Client(transport=transport, timeout=10) as client:
                return client.post(
                    f"{proxy.base_url}/v1/games", json=GAME, headers=headers
                ).status_code

        # A client that writes a new X-Forwarded-For each time is still itself.
        spoofed = [create("127.0.0.2", f"198.51.100.{n}") for n in range(1, 4)]
        assert spoofed == [201, 201, 429]
        # Another address behind the same nginx has its own allowance: not the proxy's.
        assert create("127.0.0.3") == 201


def test_edge_limits_answer_as_problems(tmp_path: Path, nginx_binary: str, replica: Server) -> None:
    with Nginx(nginx_binary, tmp_path / "nginx", [f"127.0.0.1:{replica.port}"]) as proxy:
        too_large = httpx.post(
            f"{proxy.base_url}/v1/calculations/gains",
            content=b"x" * (64 * 1024 + 1),
            headers={"Content-Type": "application/json"},
        )
        assert too_large.status_code == 413
        assert too_large.json()["type"] == "/problems/payload-too-large"
        assert not any("/v1/calculations/gains" in line for line in replica_log(replica))

        # 100 requests under way from one address (streams here): the 101st is refused.
        created = httpx.post(
            f"{proxy.base_url}/v1/games", json=GAME, headers={"Idempotency-Key": str(uuid.uuid4())}
        ).json()
        request = (
            f"GET /v1/games/{created['game']['id']}/events/stream HTTP/1.1\r\n"
            f"Host: test\r\nAuthorization: Bearer {created['host_token']}\r\n\r\n"
        ).encode()
        streams = []
        try:
            for _ in range(100):
                sock = socket.create_connection(("127.0.0.1", proxy.port), timeout=10)
                sock.sendall(request)
                assert sock.recv(4096).startswith(b"HTTP/1.1 200 ")
                streams.append(sock)
            refused = httpx.get(f"{proxy.base_url}/v1/faith-track")
            assert refused.status_code == 429
            assert refused.json()["type"] == "/problems/too-many-requests"
            assert refused.headers["retry-after"] == "1"
        finally:
            for sock in streams:
                sock.close()
        deadline = time.monotonic() + 10
        while httpx.get(f"{proxy.base_url}/v1/faith-track").status_code != 200:
            assert time.monotonic() < deadline, "the cap did not let go of closed connections"
            time.sleep(0.1)


def test_one_address_is_paced_by_the_proxy(
    tmp_path: Path, nginx_binary: str, replica: Server
) -> None:
    """nginx paces each client across every replica (100 requests at once, then 100 a
    second), fewer at once than a replica's worker, which paces the clients nginx names
    too, would refuse: every request is answered. 400 one after another take at least
    the 3 s the last 300 wait."""
    upstreams = [f"127.0.0.1:{replica.port}"]
    # From an address of its own: the replica trusts 127.0.0.1, nginx's.
    transport = httpx.HTTPTransport(local_address="127.0.0.2")
    with (
        Nginx(nginx_binary, tmp_path / "nginx", upstreams) as proxy,
        httpx.Client(base_url=proxy.base_url, timeout=20.0, transport=transport) as client,
    ):
        start = time.monotonic()
        statuses = [client.get("/v1/faith-track").status_code for _ in range(400)]
        took = time.monotonic() - start
    assert set(statuses) == {200}, {status: statuses.count(status) for status in statuses}
    assert took >= 2.5, took


def replica_log(server: Server) -> list[str]:
    return server.log_path.read_text(errors="replace").splitlines()


def test_slow_headers_and_bodies_are_cut_at_the_proxy(
    tmp_path: Path, nginx_binary: str, replica: Server
) -> None:
    with Nginx(nginx_binary, tmp_path / "nginx", [f"127.0.0.1:{replica.port}"]) as proxy:
        slow_head = socket.create_connection(("127.0.0.1", proxy.port), timeout=30)
        slow_head.sendall(b"GET /v1/faith-track HTTP/1.1\r\nHost: test\r\n")
        slow_body = socket.create_connection(("127.0.0.1", proxy.port), timeout=30)
        slow_body.sendall(
            b"POST /v1/calculations/gains HTTP/1.1\r\nHost: test\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        started = time.monotonic()
        head_answer = read_until_closed(slow_head)
        body_answer = read_until_closed(slow_body)
        took = time.monotonic() - started
    # client_header_timeout and client_body_timeout (10 s each): the connection is closed,
    # and the replica never saw either request.
    assert took < 25
    assert b"200 OK" not in head_answer and b"200 OK" not in body_answer
    assert not any("/v1/calculations/gains" in line for line in replica_log(replica))


def read_until_closed(sock: socket.socket) -> bytes:
    data = b""
    with sock:
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except ConnectionResetError:  # nginx resets what timed out (reset_timedout_connection)
            pass
    return data


def test_an_event_stream_passes_through_unbuffered(
    tmp_path: Path, nginx_binary: str, replica: Server
) -> None:
    with Nginx(nginx_binary, tmp_path / "nginx", [f"127.0.0.1:{replica.port}"]) as proxy:
        created = httpx.post(
            f"{proxy.base_url}/v1/games", json=GAME, headers={"Idempotency-Key": str(uuid.uuid4())}
        ).json()
        game, token = created["game"]["id"], created["host_token"]
        auth = {"Authorization": f"Bearer {token}"}
        url = f"{proxy.base_url}/v1/games/{game}/events/stream"
        with httpx.stream("GET", url, headers=auth, timeout=30) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.iter_lines()
            seqs = []
            changed = False
            for line in lines:
                if line.startswith("data: "):
                    seqs.append(json.loads(line[6:])["seq"])
                    if not changed:
                        # The stream is open and idle: a change must come through at once,
                        # well before any heartbeat (15 s) or nginx buffer would push it.
                        changed = True
                        put = httpx.put(
                            f"{proxy.base_url}/v1/games/{game}/faith",
                            json={"faith": {"p1": 4}},
                            headers=auth,
                        )
                        assert put.status_code == 200, put.text
                        started = time.monotonic()
                    else:
                        break
            assert seqs == [1, 2]
            assert time.monotonic() - started < 10
