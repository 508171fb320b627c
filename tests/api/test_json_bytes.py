"""The answers of plain data and the access lines are written by orjson
(``json_bytes``): byte for byte what pydantic-core's ``to_json`` wrote before, so that no
client, cache or log reader sees a change (an orjson upgrade that changes its output
fails here)."""

from __future__ import annotations

from typing import Any

import pydantic_core
from hypothesis import given
from hypothesis import strategies as st

from app.api.platform.responses import json_bytes

# What the documents and access lines hold: JSON-ready data, a key sometimes a number.
PLAIN_DATA = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text() | st.integers(-1000, 1000), inner, max_size=5)
    ),
    max_leaves=30,
)


@given(PLAIN_DATA)
def test_json_bytes_writes_what_pydantic_core_wrote(data: Any) -> None:
    assert json_bytes(data) == pydantic_core.to_json(data)


def test_an_access_line_is_written_as_before() -> None:
    line = {
        "event": "request",
        "method": "GET",
        "route": "/v1/games/{game_id}",
        "path": "/v1/games/é",
        "status": 200,
        "duration_ms": 0.372,
        "request_id": "bb37f1d3ab4d9f09cfab1a95c699a2e7",
    }
    assert json_bytes(line) == pydantic_core.to_json(line)
