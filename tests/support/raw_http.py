"""HTTP/1.1 over raw sockets: below what an HTTP client library sends or accepts.

Everything is on 127.0.0.1; ``source`` binds the client's end to another loopback
address (127.0.0.2, 127.0.0.3, ...), which the server sees as another client.
"""

from __future__ import annotations

import contextlib
import re
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.support.probes import rss_mib

MIB = 1 << 20


def status_of(data: bytes) -> int | None:
    match = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return int(match.group(1)) if match else None


def head_of(data: bytes) -> dict[str, str]:
    """The header fields of an answer, names lowercased (the last of repeated ones)."""
    head = data.partition(b"\r\n\r\n")[0].decode("latin-1")
    fields = (line.partition(":") for line in head.split("\r\n")[1:])
    return {name.strip().lower(): value.strip() for name, _, value in fields}


def connect(port: int, timeout: float = 10.0, source: str | None = None) -> socket.socket:
    sock = socket.create_connection(
        ("127.0.0.1", port), timeout=timeout, source_address=(source, 0) if source else None
    )
    sock.settimeout(timeout)
    return sock


def read_all(sock: socket.socket, limit: int = MIB, timeout: float = 10.0) -> bytes:
    """What the server sends until it closes, or ``limit`` bytes, or ``timeout`` seconds."""
    data = b""
    deadline = time.monotonic() + timeout
    with contextlib.suppress(OSError):
        while len(data) < limit and time.monotonic() < deadline:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return data


def ask(port: int, request: bytes, *, timeout: float = 10.0, source: str | None = None) -> bytes:
    """Send ``request`` on a new connection; what the server sends until it closes."""
    with contextlib.closing(connect(port, timeout, source)) as sock:
        sock.sendall(request)
        return read_all(sock, timeout=timeout)


@dataclass
class Flood:
    """Many non-blocking connections, each sending ``prefix`` then ``filler`` over and
    over (never reading), until ``per_connection`` bytes, an error, ``seconds``, or the
    server's RSS passes ``rss_guard`` MiB."""

    port: int
    pid: int
    connections: int
    prefix: bytes
    filler: bytes
    per_connection: int
    seconds: float
    rss_guard: float
    sent: int = 0
    refused: int = 0  # connections the server closed or reset
    guard_hit: bool = False
    socks: list[socket.socket] = field(default_factory=list)

    def run(self, progress: Callable[[str], None] | None = None) -> None:
        selector = selectors.DefaultSelector()
        sent = {}
        for _ in range(self.connections):
            sock = connect(self.port)
            sock.setblocking(False)
            self.socks.append(sock)
            sent[sock] = 0
            selector.register(sock, selectors.EVENT_WRITE)
        pending = {sock: self.prefix for sock in self.socks}
        deadline = time.monotonic() + self.seconds
        next_check = 0.0
        while sent and time.monotonic() < deadline:
            now = time.monotonic()
            if now >= next_check:
                next_check = now + 0.05
                if rss_mib(self.pid) > self.rss_guard:
                    self.guard_hit = True
                    break
            for key, _ in selector.select(timeout=0.05):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                data = pending[sock] or self.filler
                try:
                    count = sock.send(data)
                except BlockingIOError:
                    continue
                except OSError:
                    self.refused += 1
                    selector.unregister(sock)
                    del sent[sock]
                    continue
                pending[sock] = data[count:]
                sent[sock] += count
                self.sent += count
                if sent[sock] >= self.per_connection:
                    selector.unregister(sock)
                    del sent[sock]
        selector.close()

    def answers(self) -> dict[str, int]:
        """Per connection, the first status the server answered (without waiting long)."""
        seen: dict[str, int] = {}
        for sock in self.socks:
            data = b""
            with contextlib.suppress(OSError):
                sock.setblocking(False)
                data = sock.recv(4096)
            status = status_of(data)
            key = str(status) if status else ("closed" if data == b"" else "other")
            seen[key] = seen.get(key, 0) + 1
        return seen

    def close(self) -> None:
        for sock in self.socks:
            with contextlib.suppress(OSError):
                sock.close()
