"""The daemon's results files: whole lines only, and a full disk never stops the station."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from station.upstream.sinks import AppendLog


def test_a_torn_last_line_is_cut_at_start_and_appends_go_after_whole_lines(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    f = tmp_path / "results.jsonl"
    f.write_bytes(b'{"round":1}\n{"round":2,"stat')  # a crash mid-write
    w = AppendLog(str(f))
    w.write({"round": 2})
    w.close()
    assert f.read_text() == '{"round":1}\n{"round":2}\n'
    assert "torn last line" in caplog.text


def test_a_full_disk_is_logged_once_and_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    w = AppendLog("/dev/full")  # every write fails with ENOSPC
    for n in range(5):
        w.write({"round": n})
    w.close()
    assert w.dropped == 5
    assert caplog.text.count("cannot write") == 1


def test_closing_twice_never_closes_a_file_that_reused_the_number(tmp_path: Path) -> None:
    """The daemon and the assembly both close the results log at a stop: the second close
    once closed whatever had reused the number (seen: the metrics server's socket)."""
    log = AppendLog(str(tmp_path / "results.jsonl"))
    log.close()
    other = os.open(tmp_path / "other", os.O_WRONLY | os.O_CREAT)
    try:
        log.close()
        os.fstat(other)  # still open
    finally:
        os.close(other)
