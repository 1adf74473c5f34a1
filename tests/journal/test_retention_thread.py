"""The daemon's retention thread (station.journal.prune.Retention): a run at start, then one per
interval, each deletion logged; a journal acknowledged while it runs goes at the next run."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from station.journal import Journal
from station.journal.prune import Retention
from station.settings.retention import RetentionLimits as Limits
from tests.journal import retentionkit as kit


def _wait(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_runs_at_start_and_each_interval_logging_each_deletion(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = kit.make_aside(tmp_path, ended=time.time() - 9 * kit.DAY)
    second = kit.make_aside(tmp_path, ended=time.time() - 8 * kit.DAY)
    with kit.current(tmp_path) as journal:
        kit.ack(journal, first)
    caplog.set_level(logging.INFO, logger="station.journal.prune")
    retention = Retention(tmp_path / "journal.sqlite3", kit.TABLE, Limits(1, 0), None,
                          interval_s=0.05)
    retention.start()
    try:
        _wait(lambda: not first.path.exists(), "the run at start")
        assert second.path.exists()
        with Journal.open(tmp_path / "journal.sqlite3") as journal:
            kit.ack(journal, second, n=2)  # acknowledged while the station runs
        _wait(lambda: not second.path.exists(), "a later run")
        runs = retention.runs
        _wait(lambda: retention.runs > runs, "one more run")
    finally:
        retention.stop()
    lines = [r.getMessage() for r in caplog.records]
    assert any(line.startswith(f"journal retention: deleted {first.path}, {first.path}-head: "
                               "acknowledged up to its last record") for line in lines), lines
    assert any(line.startswith(f"journal retention: deleted {second.path}") for line in lines)
    assert (tmp_path / "journal.sqlite3").exists()
