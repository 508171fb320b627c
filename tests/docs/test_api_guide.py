"""docs/api.md stays true to the service: its problems table lists every problem type the
contract declares, and its calls table and event types table every operation and event;
it names every reason the edge counts its refusals by."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.api.problems.catalogue import PROBLEM_TYPES
from app.server import answers

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "api.md").read_text("utf-8")
CONTRACT = json.loads((ROOT / "openapi" / "openapi.json").read_text("utf-8"))


def test_every_problem_type_is_in_the_problems_table() -> None:
    listed = set(re.findall(r"^\| `([a-z-]+)` \| \d{3} \|", GUIDE, re.MULTILINE))
    assert sorted(set(PROBLEM_TYPES) - listed) == []


def test_every_event_type_is_in_the_event_types_table() -> None:
    mapping = CONTRACT["components"]["schemas"]["EventRead"]["discriminator"]["mapping"]
    listed = set(re.findall(r"^\| `([a-z_]+)` \| ", GUIDE, re.MULTILINE))
    assert sorted(set(mapping) - listed) == []


def test_every_stored_game_call_is_in_the_calls_table() -> None:
    calls = set(re.findall(r"^\| `([A-Z]+ /v1/games[^ `?]*)", GUIDE, re.MULTILINE))
    served = {
        f"{method.upper()} {path}"
        for path, item in CONTRACT["paths"].items()
        for method in item
        if path.startswith("/v1/games") and method in ("get", "put", "post", "delete")
    }
    assert sorted(served - calls) == []


def test_every_reason_the_edge_counts_a_refusal_by_is_named() -> None:
    reasons = {
        value
        for name, value in vars(answers).items()
        if name.isupper() and isinstance(value, str) and re.fullmatch(r"[a-z]+(-[a-z]+)+", value)
    }
    paragraph = GUIDE[GUIDE.index("`http_edge_refusals_total{reason}`") :].split("\n\n")[0]
    named = set(re.findall(r"`([a-z]+(?:-[a-z]+)+)`", paragraph))
    assert reasons, "no reason found in app/server/answers.py"
    assert sorted(reasons - named) == []
