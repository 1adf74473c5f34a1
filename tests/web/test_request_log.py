"""The page servers' log of requests aiohttp cannot parse (station.web.site.RequestLog, issue
30): one line per kind once a minute, the rest summed up with a count when the minute is over,
cut and on one line; a handler's own error still goes to aiohttp's logger with its traceback.
The clock is the test's."""

from __future__ import annotations

import logging

import pytest
from aiohttp.http_exceptions import BadHttpMessage, LineTooLong

from station.web.site import REQUEST_ERROR_CHARS, RequestLog


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "station.web.site"]


def test_a_flood_of_bad_requests_is_a_line_per_kind_a_minute_with_a_count(
        caplog: pytest.LogCaptureFixture) -> None:
    now = [1000.0]
    rl = RequestLog("http://127.0.0.1:8080", 60.0, clock=lambda: now[0])
    caplog.set_level(logging.DEBUG)
    for i in range(300):
        now[0] += 0.01
        exc = BadHttpMessage("Duplicate 'Host' header found.") if i % 2 else \
            LineTooLong("x" * 100_000, "8190")
        rl.exception("Error handling request from %s", "10.0.0.7", exc_info=exc)
    said = lines(caplog)
    assert len(said) == 2, said
    assert all(len(line) < 120 + REQUEST_ERROR_CHARS + 60 and "\n" not in line for line in said)
    assert "from 10.0.0.7: LineTooLong" in said[0] and "answered 400" in said[0]
    rl.flush()  # the minute is not over: nothing yet
    assert len(lines(caplog)) == 2
    now[0] += 60.0
    rl.flush()
    summed = lines(caplog)[2:]
    assert sorted(summed) == sorted([
        "http://127.0.0.1:8080: 149 more requests it could not read (BadHttpMessage) in the "
        "last 63 s",
        "http://127.0.0.1:8080: 149 more requests it could not read (LineTooLong) in the "
        "last 63 s"]), summed
    rl.flush()
    assert len(lines(caplog)) == 4  # said once
    assert rl.bad == 300
    assert not [r for r in caplog.records if r.exc_info]


def test_a_handlers_own_error_keeps_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    rl = RequestLog("http://127.0.0.1:8080")
    try:
        raise KeyError("a bug")
    except KeyError as exc:
        rl.exception("Error handling request from %s", "127.0.0.1", exc_info=exc)
    (record,) = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert record.exc_info is not None and record.levelno == logging.ERROR
    assert rl.bad == 0
