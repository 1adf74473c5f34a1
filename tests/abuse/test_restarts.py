"""Abuse: a station restarted over and over (issue 18, defect 8).

Each start used to write a recording that began with a copy of the journal's whole history:
50 restarts left 51 files and 2.5 MB. Now the journal keeps one recording, brought up to date
at each start, so the disk the recordings take follows the events, not the starts. Restarts
run in process (``build_daemon``, a few events, ``close``): the same start as ``station run``
without the interpreter's start-up, so the full 50 take seconds. Ceilings are on bytes,
files and descriptors, never on time.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from station.journal import export_journal, verify_journal
from station.live.assembly import build_daemon
from station.live.config import parse_config
from tests.abuse.scale import pick
from tests.daemon.test_daemon import config_dict

RESTARTS = pick(12, 50)
EVENTS_PER_START = 20
# Measured: about 1 KB of journal per record here (the event, its outbox messages, the
# index); twice that is the ceiling, whatever the number of starts.
JOURNAL_BYTES_PER_RECORD = 2048
DESCRIPTOR_SLACK = 4  # a lazily opened library file, a log handler: never one per start


def descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_restarts_keep_one_recording_and_no_more_descriptors(tmp_path: Path) -> None:
    config = parse_config(tmp_path / "s.yaml", config_dict(tmp_path))
    journal = tmp_path / "journal.sqlite3"
    fds: list[int] = []
    for _ in range(RESTARTS):
        built = build_daemon(config)
        daemon = built.daemon
        target = daemon.journal.last_seq + EVENTS_PER_START
        try:
            daemon.run(until=lambda d=daemon, t=target: d.journal.last_seq >= t)  # type: ignore[misc]
        finally:
            built.close()
        fds.append(descriptors())
    report = verify_journal(journal)
    # Every start journaled its events and one restart record, nothing more.
    assert report.records >= RESTARTS * EVENTS_PER_START
    recordings = sorted((tmp_path / "rec").iterdir())
    assert [p.suffix for p in recordings] == [".jsonl"], recordings  # one file, not one a start
    out = io.StringIO()
    export_journal(journal, out)
    # The one recording is the journal's export, byte for byte: one copy of the history.
    assert recordings[0].read_bytes() == out.getvalue().encode()
    assert journal.stat().st_size <= report.records * JOURNAL_BYTES_PER_RECORD
    assert not Path(f"{journal}-wal").exists() or Path(f"{journal}-wal").stat().st_size == 0
    assert max(fds) <= fds[0] + DESCRIPTOR_SLACK, fds
