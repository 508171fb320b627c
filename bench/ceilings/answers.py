"""What a ceiling answers: for each route it bounds, the status, headers and body length of
the service's own answer to the same request, probed by ``bench/run.py`` at the start of
the run and handed over as a JSON file (``CEILING_ANSWERS``).

The file holds the bytes, this code only sends them: a ceiling's code is frozen, while
the bytes it sends follow the route it bounds, so that a ratio compares the work done
per request and never two different amounts of bytes.

    {"answers": [{"method": "GET", "path": "^/v1/faith-track$", "status": 200,
                  "headers": [["cache-control", "public, max-age=3600"], ...],
                  "body_bytes": 680}, ...]}

``headers`` are the service's own, values included, except the ones uvicorn adds to every
answer of either server (``date``, ``server``) and ``content-length``, which is sent with
the body this side has.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Headers = list[tuple[bytes, bytes]]


@dataclass(frozen=True)
class Answer:
    method: str
    path: re.Pattern[str]
    status: int
    headers: Headers  # without content-length
    body: bytes  # a JSON text of the probed length

    def start(self, body_bytes: int, replace: Headers | None = None) -> dict[str, Any]:
        """The ``http.response.start`` message, with ``replace``'s values for its names."""
        headers = self.headers
        if replace:
            names = {name for name, _ in replace}
            headers = [h for h in headers if h[0] not in names] + replace
        if self.status != 304:
            headers = [*headers, (b"content-length", str(body_bytes).encode())]
        return {"type": "http.response.start", "status": self.status, "headers": headers}


def padded_json(length: int) -> bytes:
    """A JSON text of exactly ``length`` bytes (none below 2)."""
    if length < 10:
        return b"{}".ljust(length) if length >= 2 else b""
    return b'{"pad":"' + b"x" * (length - 10) + b'"}'


def load(path: str | None = None) -> list[Answer]:
    data = json.loads(Path(path or os.environ["CEILING_ANSWERS"]).read_bytes())
    return [
        Answer(
            method=a["method"],
            path=re.compile(a["path"]),
            status=int(a["status"]),
            headers=[(k.lower().encode(), v.encode()) for k, v in a["headers"]],
            body=padded_json(int(a["body_bytes"])),
        )
        for a in data["answers"]
    ]


def find(answers: list[Answer], method: str, path: str, status: int | None = None) -> Answer | None:
    for answer in answers:
        matches = answer.method == method and answer.path.match(path)
        if matches and (status is None or answer.status == status):
            return answer
    return None


NOT_FOUND = Answer("", re.compile(""), 404, [(b"content-type", b"application/json")], b"{}")
READY = Answer("", re.compile(""), 200, [(b"content-type", b"application/json")], b"{}")
