"""A JSON body is read by jiter when it can and by the standard library otherwise: every
body gets the standard library's answer, value or error (``app/api/platform/json_bodies.py``)."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.requests import ClientDisconnect

from app.api.platform.json_bodies import StrictJSONRequest, _reference_loads, strict_loads
from tests.settings import examples
from tests.support.probes import rss_mib

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def outcome(read: Any, body: bytes) -> tuple[str, str]:
    """What reading ``body`` gives, comparable: the value as JSON text, or the error."""
    try:
        return "value", json.dumps(read(body))
    except json.JSONDecodeError as exc:
        return "error", f"{exc.msg} at {exc.pos}"
    except RecursionError:
        return "error", "too deep"


@settings(max_examples=examples(400))
@given(json_values, st.booleans())
def test_a_well_formed_body_reads_as_the_standard_library_reads_it(
    value: Any, ensure_ascii: bool
) -> None:
    body = json.dumps(value, ensure_ascii=ensure_ascii).encode()
    assert outcome(strict_loads, body) == outcome(_reference_loads, body)


@settings(max_examples=examples(400))
@given(json_values, st.data())
def test_a_damaged_body_gets_the_standard_librarys_answer(value: Any, data: st.DataObject) -> None:
    body = bytearray(json.dumps(value, ensure_ascii=False).encode())
    at = data.draw(st.integers(0, len(body)))
    damage = data.draw(st.sampled_from([b"", b",", b"}", b'"', b"\\", b"\x00", b"\xff", b"\t"]))
    body[at : at + data.draw(st.integers(0, 2))] = damage
    assert outcome(strict_loads, bytes(body)) == outcome(_reference_loads, bytes(body))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"a": 1, "a": 2}', ("error", "the key 'a' appears twice in one object at 0")),
        (b'{"a": {"b": 1, "b": 1}}', ("error", "the key 'b' appears twice in one object at 0")),
        (b'\xef\xbb\xbf{"a": 1}', ("error", "Unexpected UTF-8 BOM (decode using utf-8-sig) at 0")),
        (b'{"a": "\xff"}', ("error", "the body is not UTF-8 text at 7")),
        (b'"\\ud800"', ("value", '"\\ud800"')),  # jiter refuses a lone surrogate; json does not
        (b"[" * 300 + b"]" * 300, ("value", "[" * 300 + "]" * 300)),  # past jiter's 200 levels
        (b"NaN", ("value", "NaN")),
    ],
)
def test_what_jiter_refuses_is_read_again(body: bytes, expected: tuple[str, str]) -> None:
    assert outcome(strict_loads, body) == expected == outcome(_reference_loads, body)


def test_the_parsers_string_cache_stays_bounded_whatever_clients_send() -> None:
    """jiter caches short strings across calls: 300,000 distinct ones (about 30 MiB were
    each kept) leave the process a few MiB larger at most (docs/scaling.md)."""
    strict_loads(b'{"warm": "up"}')
    before = rss_mib(os.getpid())
    for n in range(150_000):
        key = f"{n:060d}"
        strict_loads(f'{{"{key}": "{key[::-1]}"}}'.encode())
    assert rss_mib(os.getpid()) - before < 12


def _request_of(*messages: dict[str, Any]) -> StrictJSONRequest:
    """A request whose server hands over ``messages`` in turn."""
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        return queue.pop(0)

    return StrictJSONRequest({"type": "http", "method": "POST", "headers": []}, receive)


def test_a_body_in_several_parts_is_read_whole_and_streamed_as_read() -> None:
    async def read() -> tuple[bytes, bytes, Any]:
        request = _request_of(
            {"type": "http.request", "body": b'{"a"', "more_body": True},
            {"type": "http.request", "body": b"", "more_body": True},
            {"type": "http.request", "body": b": 1}", "more_body": False},
        )
        body = await request.body()
        streamed = b"".join([chunk async for chunk in request.stream()])
        return body, streamed, await request.json()

    assert asyncio.run(read()) == (b'{"a": 1}', b'{"a": 1}', {"a": 1})


def test_a_client_gone_before_its_body_ends_is_a_client_disconnect() -> None:
    async def read() -> bytes:
        request = _request_of(
            {"type": "http.request", "body": b'{"a"', "more_body": True},
            {"type": "http.disconnect"},
        )
        return await request.body()

    with pytest.raises(ClientDisconnect):
        asyncio.run(read())
