"""An answer whose length is declared leaves in one write: its head waits for its body
(``OneWriteAnswer``), so one send(2) and one segment per answer instead of two. A stream's
head, an interim 100 Continue and a ``HEAD``'s head leave at once; a held head is never
lost. First the transport wrapper alone, then the edge protocol with an app, in process
(the real server's answers are in the other edge tests)."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn import Config
from uvicorn.server import ServerState

from app.server.uvicorn_internals import JOINED_BODY_BYTES, EdgeHttpToolsProtocol, OneWriteAnswer

HEAD = b"HTTP/1.1 200 OK\r\nserver: x\r\ncontent-length: 2\r\n\r\n"
STREAM_HEAD = b"HTTP/1.1 200 OK\r\nserver: x\r\ntransfer-encoding: chunked\r\n\r\n"


class FakeTransport(asyncio.Transport):
    """What the protocol and its cycles call on a transport, recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        info = {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}
        return info.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def test_a_head_with_a_declared_length_leaves_with_the_body() -> None:
    transport = FakeTransport()
    answer = OneWriteAnswer(transport, hold=True)
    answer.write(HEAD)
    assert transport.writes == []
    answer.write(b"{}")
    assert transport.writes == [HEAD + b"{}"]
    answer.write(b"more")  # anything after the head goes as it comes
    assert transport.writes == [HEAD + b"{}", b"more"]


def test_a_body_of_any_bytes_like_type_joins_its_head() -> None:
    for body in (bytearray(b"{}"), memoryview(b"{}")):
        transport = FakeTransport()
        answer = OneWriteAnswer(transport, hold=True)
        answer.write(HEAD)
        answer.write(body)
        assert transport.writes == [HEAD + b"{}"]


def test_a_streams_head_leaves_at_once() -> None:
    transport = FakeTransport()
    answer = OneWriteAnswer(transport, hold=True)
    answer.write(STREAM_HEAD)
    assert transport.writes == [STREAM_HEAD]


def test_an_interim_100_continue_leaves_at_once_and_the_answer_still_waits() -> None:
    transport = FakeTransport()
    answer = OneWriteAnswer(transport, hold=True)
    answer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    answer.write(HEAD)
    answer.write(b"{}")
    assert transport.writes == [b"HTTP/1.1 100 Continue\r\n\r\n", HEAD + b"{}"]


def test_a_head_not_held_leaves_at_once() -> None:
    transport = FakeTransport()
    OneWriteAnswer(transport, hold=False).write(HEAD)
    assert transport.writes == [HEAD]


def test_a_held_head_leaves_before_a_close() -> None:
    transport = FakeTransport()
    answer = OneWriteAnswer(transport, hold=True)
    answer.write(HEAD)
    answer.close()
    assert transport.writes == [HEAD] and transport.closed and answer.is_closing()


def test_a_large_body_is_not_copied_to_join_its_head() -> None:
    transport = FakeTransport()
    answer = OneWriteAnswer(transport, hold=True)
    body = b"x" * (JOINED_BODY_BYTES + 1)
    answer.write(HEAD)
    answer.write(body)
    assert transport.writes == [HEAD, body]


BODY = b'{"ok":true}'


async def _answering(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A declared length for /, a stream of two chunks for /stream."""
    if scope["path"] == "/stream":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"one", "more_body": True})
        await send({"type": "http.response.body", "body": b"two"})
        return
    length = str(len(BODY)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", length)]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": BODY})


def _served(request: bytes) -> list[bytes]:
    """The writes of the edge protocol answering ``request`` on one connection."""

    async def serve() -> list[bytes]:
        config = Config(_answering, log_level="warning", access_log=False)
        config.load()
        protocol = EdgeHttpToolsProtocol(config, ServerState(), {}, asyncio.get_running_loop())
        transport = FakeTransport()
        protocol.connection_made(transport)
        protocol.data_received(request)
        for _ in range(20):  # the app's task, then uvicorn's completion callbacks
            await asyncio.sleep(0)
        protocol.connection_lost(None)
        return transport.writes

    return asyncio.run(serve())


def test_the_edge_protocol_writes_an_answer_of_known_length_once() -> None:
    (written,) = _served(b"GET / HTTP/1.1\r\nHost: edge\r\n\r\n")
    assert written.startswith(b"HTTP/1.1 200 OK\r\n")
    assert written.endswith(b"\r\n\r\n" + BODY)


def test_the_edge_protocol_writes_a_streams_head_before_its_chunks() -> None:
    writes = _served(b"GET /stream HTTP/1.1\r\nHost: edge\r\n\r\n")
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and writes[0].endswith(b"\r\n\r\n")
    assert b"".join(writes[1:]) == b"3\r\none\r\n3\r\ntwo\r\n0\r\n\r\n"


def test_the_edge_protocol_writes_a_heads_head_at_once() -> None:
    (written,) = _served(b"HEAD / HTTP/1.1\r\nHost: edge\r\n\r\n")
    assert written.startswith(b"HTTP/1.1 200 OK\r\n") and written.endswith(b"\r\n\r\n")
    assert b"content-length: 11\r\n" in written


def test_pipelined_answers_each_leave_in_one_write() -> None:
    one = b"GET / HTTP/1.1\r\nHost: edge\r\n\r\n"
    writes = _served(one * 3)
    assert len(writes) == 3 and all(w.endswith(b"\r\n\r\n" + BODY) for w in writes)
