"""The edge attacks against one replica, straight and through nginx: figures for bench/DEPLOY.md.

    python -m bench.edge_proxy                          # print the table
    python -m bench.edge_proxy --out bench/DEPLOY.md    # and write the report

One ``python -m app`` (SQLite, in a temporary folder) and Debian's nginx on the host with
deploy/nginx's configuration (tests/deploy/proxy.py writes its main file), everything on
127.0.0.1 and bounded in time. Each attack runs twice: at the replica's port, then at
nginx's. RSS figures are the replica's worker unless named ``nginx_``; the attacks are
bench/attacks.py's, plus the ones only a proxy changes (a slow body, many streams from one
address, the cost of the extra hop).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import socket
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from bench.edge_attacks import idle_connections, slow_headers
from bench.edge_cost import wrk
from tests.deploy.proxy import Nginx
from tests.support.edge_attacks import endless_headers
from tests.support.probes import RssSampler, children_of, open_fds, rss_mib
from tests.support.raw_http import connect, read_all, status_of
from tests.support.servers import Server, running

GAME = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 1}


def slow_body(
    port: int, pid: int, *, connections: int = 50, seconds: float = 25.0
) -> dict[str, Any]:
    """Each client sends its headers, then one byte of its body every 5 s (under nginx's
    10 s between reads, over the service's 10 s for the whole body)."""
    socks = [connect(port, timeout=30) for _ in range(connections)]
    head = (
        b"POST /v1/calculations/gains HTTP/1.1\r\nHost: attack\r\n"
        b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    )
    for sock in socks:
        sock.sendall(head)
    replica_fds = open_fds(pid)
    open_socks = {sock: b"" for sock in socks}
    answers: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    while open_socks and time.monotonic() < deadline:
        time.sleep(5)
        for sock in list(open_socks):
            try:
                sock.sendall(b" ")
                sock.setblocking(False)
                try:
                    data = sock.recv(4096)
                    gone = True
                except BlockingIOError:
                    data, gone = b"", False
                sock.setblocking(True)
            except OSError:
                data, gone = b"", True
            if gone:
                key = str(status_of(data) or "closed")
                answers[key] = answers.get(key, 0) + 1
                del open_socks[sock]
                sock.close()
    for sock in open_socks:
        sock.close()
    return {
        "connections": connections,
        "replica_fds_while_sending": replica_fds,
        f"still_open_after_{seconds:g}s": len(open_socks),
        "answers": answers or None,
    }


def many_streams(port: int, base_url: str, *, streams: int = 150) -> dict[str, Any]:
    """One address opens ``streams`` event streams on one game."""
    created = httpx.post(
        f"{base_url}/v1/games", json=GAME, headers={"Idempotency-Key": str(uuid.uuid4())}
    ).json()
    request = (
        f"GET /v1/games/{created['game']['id']}/events/stream HTTP/1.1\r\n"
        f"Host: attack\r\nAuthorization: Bearer {created['host_token']}\r\n\r\n"
    ).encode()
    socks: list[socket.socket] = []
    statuses: dict[str, int] = {}
    try:
        for _ in range(streams):
            sock = connect(port)
            sock.sendall(request)
            status = str(status_of(sock.recv(4096)))
            statuses[status] = statuses.get(status, 0) + 1
            socks.append(sock)
    finally:
        for sock in socks:
            sock.close()
    return {"streams": streams, "statuses": statuses}


def large_body(port: int, *, size: int = 1 << 20) -> dict[str, Any]:
    sock = connect(port)
    sock.sendall(
        b"POST /v1/calculations/gains HTTP/1.1\r\nHost: attack\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % size
    )
    with contextlib.suppress(OSError):
        sock.sendall(b" " * size)
    data = read_all(sock, 65536, 10.0)
    sock.close()
    body = data.partition(b"\r\n\r\n")[2]
    problem = None
    with contextlib.suppress(ValueError):
        problem = json.loads(body).get("type")
    return {"status": status_of(data), "problem_type": problem}


def throughput(direct: int, proxied: int, rounds: int, seconds: int) -> dict[str, Any]:
    """wrk on GET /healthz at 64 connections, alternating the two ports each round."""
    figures: dict[str, list[float]] = {"direct": [], "nginx": []}
    for _ in range(rounds):
        figures["direct"].append(wrk(direct, 64, seconds))
        figures["nginx"].append(wrk(proxied, 64, seconds))
    best = {name: max(values) for name, values in figures.items()}
    return {
        "rounds": rounds,
        "direct_rps_best": round(best["direct"]),
        "nginx_rps_best": round(best["nginx"]),
        "nginx_over_direct": round(best["nginx"] / best["direct"], 2) if best["direct"] else None,
    }


@contextlib.contextmanager
def replica_behind_nginx(nginx_binary: str, folder: Path) -> Iterator[tuple[Server, Nginx, int]]:
    server = Server(
        f"sqlite:///{folder}/edge.db",
        folder,
        "edge",
        env={"TRUSTED_PROXIES": "127.0.0.1/32", "LOG_LEVEL": "warning"},
    )
    with (
        running(server),
        Nginx(nginx_binary, folder / "nginx", [f"127.0.0.1:{server.port}"]) as proxy,
    ):
        assert server.proc is not None
        yield server, proxy, server.proc.pid


def run(nginx_binary: str, rounds: int, seconds: int) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="vr-edge-proxy-") as tmp,
        replica_behind_nginx(nginx_binary, Path(tmp)) as (server, proxy, pid),
    ):
        assert proxy.proc is not None
        nginx_pid = children_of(proxy.proc.pid)[0]
        attacks: list[tuple[str, str, Callable[[int], dict[str, Any]]]] = [
            (
                "endless-headers",
                "100 connections each send a header line that never ends (8 MiB each, 10 s)",
                lambda port: endless_headers(port, pid, seconds=10.0),
            ),
            (
                "slow-headers",
                "50 connections send a header line every 0.5 s (14 s)",
                lambda port: slow_headers(port),
            ),
            (
                "slow-body",
                "50 connections send their headers, then a byte of body every 5 s (25 s)",
                lambda port: slow_body(port, pid),
            ),
            (
                "idle",
                "2,000 connections that send nothing, checked after 12 s",
                lambda port: idle_connections(port, pid, wait=12.0),
            ),
            (
                "many-streams",
                "one address opens 150 event streams",
                lambda port: many_streams(port, f"http://127.0.0.1:{port}"),
            ),
            ("large-body", "one 1 MiB body", lambda port: large_body(port)),
        ]
        for name, what, attack in attacks:
            row: dict[str, Any] = {"what": what}
            for side, port in (("direct", server.port), ("nginx", proxy.port)):
                print(f"{name} ({side}) ...", flush=True)
                with RssSampler(nginx_pid) as nginx_rss:
                    row[side] = attack(port)
                if side == "nginx":
                    row[side]["nginx_rss_peak_mib"] = round(nginx_rss.peak, 1)
                    row[side]["nginx_rss_after_mib"] = round(rss_mib(nginx_pid), 1)
                time.sleep(1.0)
            results[name] = row
        if rounds:
            print("throughput ...", flush=True)
            results["throughput"] = {
                "what": f"wrk GET /healthz, 64 connections, {seconds} s, best of {rounds}",
                "both": throughput(server.port, proxy.port, rounds, seconds),
            }
    return results


def cell(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key}: {item}" for key, item in value.items()) or "-"
    return "-" if value is None else str(value)


def render(results: dict[str, dict[str, Any]], command: str, load: str) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# The edge through nginx",
        "",
        f"Produced by `{command}` on {now}, 2 cores shared with other work (the load",
        f"average, before and after: {load}; figures are indicative; loopback). One",
        "replica (`python -m app`, SQLite) and Debian's nginx with",
        '[`deploy/nginx`](../deploy/nginx); each attack at the replica\'s own port ("direct"),',
        "then at nginx's. RSS is the replica's worker in MiB unless named `nginx_`;",
        "`other_client` is a fresh client's GET /healthz during the attack (status / seconds).",
        "What each figure means for an operator:",
        "[docs/deploy.md](../docs/deploy.md#what-nginx-adds).",
    ]
    for name, row in results.items():
        lines += ["", f"## {name}", "", row["what"], ""]
        if "both" in row:
            lines += ["| figure | value |", "| --- | --- |"]
            lines += [f"| {key} | {cell(value)} |" for key, value in row["both"].items()]
            continue
        keys = list(dict.fromkeys([*row["direct"], *row["nginx"]]))
        lines += ["| figure | direct | nginx |", "| --- | --- | --- |"]
        lines += [
            f"| {key} | {cell(row['direct'].get(key))} | {cell(row['nginx'].get(key))} |"
            for key in keys
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nginx", default="/usr/sbin/nginx")
    parser.add_argument("--throughput-rounds", type=int, default=3, help="0 to skip")
    parser.add_argument("--throughput-seconds", type=int, default=5)
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    results = run(args.nginx, args.throughput_rounds, args.throughput_seconds)
    command = " ".join(["python -m bench.edge_proxy", *sys.argv[1:]])
    report = render(results, command, f"{load_before:.1f}, {os.getloadavg()[0]:.1f}")
    print(report)
    if args.out:
        args.out.write_text(report)


if __name__ == "__main__":
    main()
