"""The ceilings of ``bench/ceilings/`` and the peer's game are frozen: every ratio recorded
in ``bench/RESULTS.md`` since "Baseline against the frozen ceilings" is to these very
sources, so a change to one of them moves every ratio at once, for no change of the
service. Fast: no server, only the files.

To change one on purpose: say what changed and why in ``bench/RESULTS.md``, with the
ratios before and after on the same machine, then put its new hash below.
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import importlib
import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CEILINGS = REPO / "bench" / "ceilings"
PEER = REPO / "bench" / "peers" / "boardgameio"

FROZEN = {
    # Only the package marker, so that ``python -m bench.ceilings.serve`` is a regular
    # package's module; no ceiling reads it.
    "ceilings/__init__.py": "f2f56165542a73e084df5c8a585fcde501677a1f939d8f280befcc01b3b30259",
    "ceilings/answers.py": "f85e2ba141c1ae7ed191f5399b06d06646572fffd534def09ca8fdcaa3c21c03",
    "ceilings/asgi.py": "78ce1f37212256e3838760052501eeb84230f2d5962052334be27cd6ae74aa9e",
    "ceilings/bare.py": "561afd401c1cd6e09f1f2ef12ed6f015b51ca8dd2a950f3840c5d98d15c9712a",
    "ceilings/bare_read.py": "1afd59a19b073d9656eb7709f3949f86c2fb381f4bd50ba24c20c675d6c2d90e",
    "ceilings/bare_write.py": "cf19e8daf077167b207d9d876cec4816b030f0fa770a4fe1bdfc42a93c660ed4",
    "ceilings/database.py": "0554f871889063753414624a69f690533e1855d00fe3a91bc6cf5b4b65a79814",
    "ceilings/serve.py": "201eae91da1013cf8cd63e764fe63679a5d7785b078326eba03c032550ad7dc6",
    # Not a goal's ceiling (its module says why), frozen all the same: a reference that
    # changes moves its ratios for no change of the service.
    "ceilings/bare_read_libpq.py": (
        "1e18970d432d1bd8638254cd95046bfbf92dae28dbe7b45ab96e1ea8d3e9b289"
    ),
    "ceilings/libpq_rows.py": "163d25d161263c0df203297970e70c88228d1d3f0d4194f0230cebce896b977d",
    "peers/boardgameio/server.js": (
        "9efc369ffe33403086d9247824e25c3cd493afee8e71c2629d1897ea8a2f127d"
    ),
    "peers/boardgameio/package.json": (
        "15fe8cb9b58a79828de3cf30f192d100105745a02e0a83c750083664f64079a5"
    ),
    "peers/boardgameio/package-lock.json": (
        "1d8a38ebaf31eb9e5fc60cf683c06be5d89a294263390e611af6ad6a79bda73d"
    ),
}


def _sources() -> dict[str, str]:
    files = [p for p in CEILINGS.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    files += [PEER / name for name in ("server.js", "package.json", "package-lock.json")]
    return {
        p.relative_to(REPO / "bench").as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in files
        if p.exists()
    }


def test_the_ceilings_are_the_ones_the_results_were_measured_with() -> None:
    found = _sources()
    changed = sorted(
        path for path in FROZEN.keys() | found.keys() if found.get(path) != FROZEN.get(path)
    )
    assert not changed, (
        f"bench/{', bench/'.join(changed)}: changed, added or removed. The ceilings "
        "(and the peer) are frozen: a ceiling is changed only with a note in "
        "bench/RESULTS.md (what changed, why, the ratios before and after on one "
        "machine), then its hash in this test."
    )


def test_no_ceiling_imports_the_service() -> None:
    sources = sorted(CEILINGS.glob("*.py"))
    assert {"bare.py", "bare_read.py", "bare_write.py"} <= {p.name for p in sources}
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            importing_app = [n for n in names if n == "app" or n.startswith("app.")]
            assert not importing_app, f"{path.name} imports {importing_app}"


def _call(app: Any, method: str, path: str, body: bytes = b"") -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": []}
    asyncio.run(app(scope, receive, send))
    return sent


def test_bare_answers_the_bytes_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = tmp_path / "answers.json"
    answer = {
        "method": "POST",
        "path": "^/v1/calculations/gains$",
        "status": 200,
        "headers": [["content-type", "application/json"], ["x-request-id", "0" * 32]],
        "body_bytes": 1075,
    }
    answers.write_text(json.dumps({"answers": [answer]}))
    monkeypatch.setenv("CEILING_ANSWERS", str(answers))
    bare = importlib.reload(importlib.import_module("bench.ceilings.bare"))

    start, body = _call(bare.app, "POST", "/v1/calculations/gains", b'{"gains": []}')

    assert start["status"] == 200
    headers = dict(start["headers"])
    assert headers[b"x-request-id"] == b"0" * 32
    assert headers[b"content-length"] == b"1075"
    assert len(body["body"]) == 1075
    json.loads(body["body"])  # a JSON text, as the route's
    assert _call(bare.app, "GET", "/v1/calculations/gains")[0]["status"] == 404
