"""The JSON columns' codec writes what the standard library reads and reads what it wrote:
rows stored before the codec changed (``json.dumps``, ASCII escapes) read back the same."""

from __future__ import annotations

import json
from typing import Any

import pydantic_core
from hypothesis import given
from hypothesis import strategies as st

from app.persistence.json_columns import json_text, json_value

# What the columns hold: the domain's JSON-ready data (no floats there, but keep them honest).
JSON_DATA = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(JSON_DATA)
def test_what_the_codec_writes_the_standard_library_reads(data: Any) -> None:
    assert json.loads(json_text(data)) == data


@given(JSON_DATA)
def test_the_codec_writes_what_pydantic_core_wrote(data: Any) -> None:
    # It wrote the columns before orjson did: the same text, rows old and new alike.
    assert json_text(data) == pydantic_core.to_json(data).decode()


@given(JSON_DATA)
def test_rows_written_by_the_standard_library_read_back_alike(data: Any) -> None:
    for text in (json.dumps(data), json.dumps(data, ensure_ascii=False)):
        assert json_value(text) == data
        assert json_value(text.encode()) == data


def test_text_is_compact_and_unescaped() -> None:
    assert json_text({"name": "Niccolò Machiavelli", "faith": [3, 4]}) == (
        '{"name":"Niccolò Machiavelli","faith":[3,4]}'
    )
