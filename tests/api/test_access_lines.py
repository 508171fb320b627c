"""The access log's sink as ``python -m app`` configures it (AccessLineHandler): the same
lines as the logger would write, at the next turn of the event loop, one write per turn,
and ordinary log records whenever ``app.access`` is configured any other way."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import logging.config
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from app.__main__ import log_config
from app.api.platform.request_log import AccessLineHandler, RequestLog, access_logger


class CountingStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0
        self.flushes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


@contextmanager
def served() -> Iterator[tuple[AccessLineHandler, CountingStream]]:
    """``app.access`` going to an AccessLineHandler alone, as served; restored after. (Entered
    in the test's body: pytest adds its capture handler to every non-propagating logger
    when the test starts, after its fixtures.)"""
    saved = (access_logger.handlers[:], access_logger.propagate, access_logger.level)
    stream = CountingStream()
    handler = AccessLineHandler(stream)
    access_logger.handlers[:] = [handler]
    access_logger.propagate = False
    access_logger.setLevel(logging.INFO)
    try:
        yield handler, stream
    finally:
        access_logger.handlers[:], access_logger.propagate = saved[0], saved[1]
        access_logger.setLevel(saved[2])


@pytest.fixture
def records_made(monkeypatch: pytest.MonkeyPatch) -> list[logging.LogRecord]:
    made: list[logging.LogRecord] = []
    factory = logging.getLogRecordFactory()

    def counting(*args: object, **kwargs: object) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        made.append(record)
        return record

    monkeypatch.setattr(logging, "getLogRecordFactory", lambda: counting)
    return made


def log(request_id: str, status: int = 200) -> None:
    RequestLog().record("GET", "/healthz", "/healthz", status, 0.0012345, request_id)


async def one_turn_then_the_next(stream: io.StringIO) -> None:
    for number in range(5):
        log(f"r{number}")
    assert lines(stream) == []  # not during the turn
    await asyncio.sleep(0)


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_turns_lines_are_written_together_at_the_next_turn_without_records(
    records_made: list[logging.LogRecord],
) -> None:
    with served() as (_, stream):
        asyncio.run(one_turn_then_the_next(stream))
    written = lines(stream)

    assert [line["request_id"] for line in written] == ["r0", "r1", "r2", "r3", "r4"]
    assert written[0] == {
        "event": "request",
        "method": "GET",
        "route": "/healthz",
        "path": "/healthz",
        "status": 200,
        "duration_ms": 1.234,
        "request_id": "r0",
    }
    assert (stream.writes, stream.flushes) == (1, 1)
    assert records_made == []


def test_the_line_is_the_one_a_record_would_carry(caplog: pytest.LogCaptureFixture) -> None:
    with served() as (_, stream):
        log("same")  # no loop: written at once
    with caplog.at_level(logging.INFO, logger="app.access"):
        log("same")
    assert [r.getMessage() for r in caplog.records] == stream.getvalue().splitlines()


def test_off_the_loop_a_line_is_written_at_once() -> None:
    with served() as (_, stream):
        log("a")
        log("b")
    assert [line["request_id"] for line in lines(stream)] == ["a", "b"]


def test_lines_held_for_a_loop_that_stopped_go_out_with_the_next_loops() -> None:
    def log_and_stop(loop: asyncio.AbstractEventLoop) -> None:
        log("held")
        loop.stop()  # the loop ends with this turn: the turn that would write never comes

    async def next_loop() -> None:
        log("next")
        await asyncio.sleep(0)

    with served() as (_, stream):
        stopped = asyncio.new_event_loop()
        stopped.call_soon(log_and_stop, stopped)
        stopped.run_forever()
        stopped.close()
        assert lines(stream) == []
        asyncio.run(next_loop())
    assert [line["request_id"] for line in lines(stream)] == ["held", "next"]


def test_close_writes_what_is_still_held() -> None:
    async def log_and_close(handler: AccessLineHandler) -> None:
        log("last")
        handler.close()

    with served() as (handler, stream):
        asyncio.run(log_and_close(handler))
    assert [line["request_id"] for line in lines(stream)] == ["last"]


@pytest.mark.parametrize("configured", ["a filter on the logger", "a second handler", "level"])
def test_any_other_configuration_gets_records(
    records_made: list[logging.LogRecord], configured: str
) -> None:
    dropped = logging.Filter("nothing.matches")
    with served() as (handler, stream):
        if configured == "a filter on the logger":
            access_logger.addFilter(dropped)
        elif configured == "a second handler":
            access_logger.addHandler(logging.NullHandler())
        else:
            handler.setLevel(logging.WARNING)
        try:
            log("r")
        finally:
            access_logger.removeFilter(dropped)
    assert len(records_made) == 1
    # The filter drops the record; the level keeps it from this handler.
    expected = ["r"] if configured == "a second handler" else []
    assert [line["request_id"] for line in lines(stream)] == expected


def test_python_m_app_logs_access_lines_with_this_handler() -> None:
    saved = (access_logger.handlers[:], access_logger.propagate, access_logger.level)
    try:
        logging.config.dictConfig(log_config("INFO"))
        assert [type(h) for h in access_logger.handlers] == [AccessLineHandler]
        assert access_logger.propagate is False
    finally:
        access_logger.handlers[:], access_logger.propagate = saved[0], saved[1]
        access_logger.setLevel(saved[2])
