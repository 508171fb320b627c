"""Probes: one request of a scenario, the bytes of its answer, and the entry of the
ceilings' answers file built from it (``bench/ceilings/answers.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx

from bench.scenarios import Request

# Headers uvicorn adds to every answer of the service and of a ceiling alike, and the one a
# ceiling computes from its own body.
_ADDED = {"date", "server", "content-length"}
_IDS = [(re.compile(r"[0-9a-f]{32}"), "[^/]+"), (re.compile(r"/p\d+(?=/|$)"), "/[^/]+")]


@dataclass
class Probed:
    method: str
    path: str
    status: int
    headers: list[tuple[str, str]]
    head_bytes: int  # status line and headers, as sent
    body_bytes: int

    def bytes(self) -> str:
        return f"{self.status}, {self.head_bytes} + {self.body_bytes} B"

    def answer(self) -> dict[str, Any]:
        """The entry of the ceilings' answers file (``bench/ceilings/answers.py``)."""
        pattern = re.escape(self.path)
        for ids, wildcard in _IDS:
            pattern = ids.sub(wildcard, pattern)
        kept = [[k, v] for k, v in self.headers if k.lower() not in _ADDED]
        return {
            "method": self.method,
            "path": f"^{pattern}$",
            "status": self.status,
            "headers": kept,
            "body_bytes": self.body_bytes,
        }


def probe(base_url: str, request: Request) -> Probed:
    method, path, headers, body = request
    answer = httpx.request(method, base_url + path, headers=headers, content=body, timeout=10)
    raw = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in answer.headers.raw]
    head = len(f"HTTP/1.1 {answer.status_code} {answer.reason_phrase}\r\n") + 2
    head += sum(len(k) + len(v) + 4 for k, v in raw)
    return Probed(method, path, answer.status_code, raw, head, len(answer.content))
