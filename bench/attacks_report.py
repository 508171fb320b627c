"""bench/ATTACKS.md from the figures of ``bench.attacks``: per attack, each figure
before and after; then what the edge costs."""

from __future__ import annotations

import os
import time
from typing import Any

from bench.edge_cost import COST_NOTES

# Every attack, in the order of the report, with what it does.
DESCRIPTIONS = {
    "endless-headers": "100 connections each send a header line that never ends (8 MiB each, 15 s)",
    "complete-16mb-header": "one request with a complete 16 MiB header",
    "10000-headers": "one request with 10,000 header fields",
    "pipelined": "100 connections pipeline GET /healthz (4 MiB each, 15 s), never read",
    "idle": "2,000 connections that send nothing, checked after 7 s",
    "slow-headers": "50 connections send a header line every 0.5 s (14 s)",
    "connection-limit": "MAX_CONNECTIONS=100: 100 idle connections held, 10 more ask",
    "disconnects": "20 clients send half a body, then disconnect",
    "kill-master": "--workers 2, SIGKILL the master",
    "stop-master": "--workers 2, SIGTERM the master",
    "stalled-write-slots": "3 connections send the head of a change without a token and never "
    "its body (BODY_TIMEOUT_SECONDS=30); meanwhile 9 changes of 3 other games, one after "
    "the other",
    "slow-game": "SQLite: every change of one game made slow by a trigger (about a second "
    "each with the write lock held); 8 of them at once, then 5 changes of another game",
    "address-flood": "1,300 idle connections from 127.0.0.2 (more than MAX_CONNECTIONS, "
    "1250), then GET /healthz from 127.0.0.3; defaults",
    "head-accept": "HEAD on 8 GET routes; GET of a game with Accept: application/xml and "
    "text/event-stream; a faith change with Accept: application/xml",
    "metrics-exposure": "GET /metrics from 127.0.0.2 with METRICS_NETWORKS=127.0.0.1/32 "
    "(standing for another network; the setting is new)",
    "stream-replays": "a game of 1,000 events (GAME_WRITE_RATE=0 to fill it); 1,000 "
    "`GET .../events/stream?after=0` with its token from 20 addresses, never read, held "
    "15 s; meanwhile two other games read (GET) and changed (a faith change) one request "
    "after the other; RSS in MiB, after close 5 s after the streams closed",
    "request-flood": "one address (127.0.0.1) reads its own game with its token as fast as "
    "64 connections go (wrk, 15 s); meanwhile another address (127.0.0.3) reads (GET) and "
    "changes (a faith change) two other games one request after the other; defaults",
    "proxied-flood": "the request flood, forwarded: 127.0.0.1 is a trusted proxy "
    "(TRUSTED_PROXIES=127.0.0.1/32) and every request of the flood names one client "
    "(X-Forwarded-For: 203.0.113.7); the other address (127.0.0.3) connects directly",
    "guessable-idempotency-key": "a game created with Idempotency-Key "
    "`aaaaaaaaaaaaaaaaaaaaaa`; a stranger (127.0.0.3) sends the same key and body",
    "player-flips": "player p1 flips their own period I decision 60 times (defaults), then "
    "the host resolves; the same with 1,000 flips and the write rates off (`rates_off_`); "
    "on another game, p1 sends the same decision twice (events the second one logs)",
    "recovery-codes": "32 strangers, each from an address of its own, send wrong recovery "
    "codes (`POST .../recovery`, no token) for 10 s, 10 a second each, in turn for a real "
    "game and for games that do not exist; meanwhile another table (127.0.0.3) changes its "
    "own game one request after another; PostgreSQL, GAME_WRITE_RATE=0",
    "recovery-codes-keyed": "as recovery-codes, but every attempt and every change of the "
    "other table sends a fresh Idempotency-Key (a keyed change takes a request thread on "
    "PostgreSQL)",
    "keyed-nothing": "the host sets p1's Faith to 15, then sends 500 Faith gains of 1 (each "
    "changes nothing), each with a fresh Idempotency-Key, one after another; defaults",
}
ATTACK_NAMES = list(DESCRIPTIONS)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return " / ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_cell(v)}" for k, v in value.items()) or "-"
    return str(value)


def render_markdown(figures: dict[str, Any], command: str) -> str:
    """bench/ATTACKS.md: per attack, each figure before and after; then throughput."""
    before = figures.get("before", {})
    after = figures.get("after", {})
    before_label = figures.get("before_label") or "the checkout given with `--before DIR`"
    lines = [
        "# Attacks on the HTTP edge: before and after",
        "",
        f"Produced by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())},",
        f"{os.cpu_count()} cores shared with other work (figures are indicative; loopback).",
        f'"before" is {before_label};',
        '"after" is this checkout. RSS is the worker\'s VmRSS in MiB; `other_client` is a',
        "fresh client's GET /healthz during the attack (status / seconds). Each attack stops",
        "sending once the server's RSS passes the guard (1024 MiB), so peaks past it are cut.",
        "",
    ]
    for name in ATTACK_NAMES:
        if name not in after and name not in before:
            continue
        lines += [f"## {name}", "", DESCRIPTIONS.get(name, ""), ""]
        lines += ["| figure | before | after |", "| --- | --- | --- |"]
        keys = list(dict.fromkeys([*before.get(name, {}), *after.get(name, {})]))
        for key in keys:
            was = _cell(before.get(name, {}).get(key, "-"))
            now = _cell(after.get(name, {}).get(key, "-"))
            lines.append(f"| {key} | {was} | {now} |")
        lines.append("")
    throughput_figures = figures.get("throughput")
    if throughput_figures:
        lines += [
            "## Throughput: what the edge costs",
            "",
            "GET /healthz, one worker, same app; wrk with one thread; best of the rounds,",
            "the two servers interleaved. `plain-httptools` is uvicorn's own httptools",
            "protocol, `edge` the bounded subclass of `app/server/uvicorn_internals.py`.",
            "",
            "| server | connections | best req/s | median req/s | every round |",
            "| --- | --- | --- | --- | --- |",
        ]
        for key, values in throughput_figures.items():
            server, conns = key.rsplit(" c", 1)
            rounds = values if isinstance(values, list) else [values]
            median = sorted(rounds)[len(rounds) // 2]
            every = ", ".join(str(v) for v in rounds)
            lines.append(f"| {server} | {conns} | {max(rounds)} | {median} | {every} |")
        lines += ["", *COST_NOTES, ""]
    return "\n".join(lines)
