"""The journal as the daemon will use it: create, append (with outbox rows), reopen, read,
replay, the outbox from another thread, and failing writes that leave the journal intact."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from drivers.events import CardRead
from station.journal import (
    Journal,
    JournalError,
    JournalWriteError,
    read_journal,
    verify_journal,
)
from station.journal.files import companions
from station.settings.paytable import load_paytable
from station.table.outputs import Published
from station.wire.recording import read_recording
from tests.conftest import REPO
from tests.journal.journalkit import RULES, T0, append_events, event, make_journal, message

RECORDINGS = sorted(p for p in (REPO / "tests" / "recordings").glob("*.jsonl")
                    if not p.name.endswith(".results.jsonl"))


def test_append_returns_consecutive_seqs_and_reopen_continues(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal.create(path, RULES, None, "s1") as journal:
        assert journal.last_seq == 0
        seqs = [journal.append(event(i), T0 + i, 5.0 + i, message(i)) for i in range(3)]
        assert seqs == [1, 2, 3]
    with Journal.open(path) as journal:
        assert journal.last_seq == 3
        assert journal.append(event(3), T0, 9.0) == 4
        got = [(r.seq, r.wall_ts, r.mono_ts, r.event) for r in journal.records()]
    assert got == [(1, T0, 5.0, event(0)), (2, T0 + 1, 6.0, event(1)),
                   (3, T0 + 2, 7.0, event(2)), (4, T0, 9.0, event(3))]
    assert journal.header.session == "s1" and journal.header.rules == RULES


def test_header_holds_what_replay_needs(tmp_path: Path) -> None:
    paytable = load_paytable(REPO / "config" / "paytables" / "seed000.yaml")
    path = tmp_path / "j.sqlite3"
    Journal.create(path, RULES, paytable, "abcd").close()
    header = verify_journal(path).header
    assert header.paytable is not None and header.paytable.text == paytable.text
    assert header.session == "abcd" and header.station_version
    assert header.created.endswith("Z")
    assert header.recording_header["format"] == "dealer-station-recording"


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda p: p.stem)
def test_a_journal_replays_like_the_recording_it_holds(tmp_path: Path, recording: Path) -> None:
    rec = read_recording(recording)
    path = tmp_path / "j.sqlite3"
    with Journal.create(path, rec.rules, rec.paytable, rec.session) as journal:
        for i, ev in enumerate(rec.events):
            journal.append(ev, T0 + i, float(i))
    opened = read_journal(path)
    station = opened.station()
    published = [o.record for ev in opened.events for o in station.apply(ev)
                 if isinstance(o, Published)]
    expected_file = recording.with_name(recording.stem + ".results.jsonl")
    assert published == [json.loads(x) for x in expected_file.read_text().splitlines() if x]
    assert station.prompt.line() == recording.with_suffix(".final.txt").read_text().strip()


def test_outbox_rows_come_in_order_and_once_delivered_stay_delivered(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal.create(path, RULES, None, "s") as journal:
        journal.append(event(0), T0, 0.0, [("status", b"a"), ("events", b"b")])
        journal.append(event(1), T0, 1.0)
        journal.append(event(2), T0, 2.0, [("events", b"c")])
        rows = journal.pending(10)
        assert [(r.id, r.topic, r.payload) for r in rows] == [
            (1, "status", b"a"), (2, "events", b"b"), (3, "events", b"c")]
        assert [r.id for r in journal.pending(2)] == [1, 2]
        journal.mark_delivered([1, 2])
        journal.mark_delivered([1])  # again: harmless
        assert journal.backlog() == 1
        assert [r.id for r in journal.pending(10)] == [3]
    with Journal.open(path) as journal:  # delivery marks survive a restart
        assert [r.id for r in journal.pending(10)] == [3]


def test_a_publisher_thread_drains_while_the_loop_appends(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    total = 600
    sent: list[bytes] = []
    with Journal.create(path, RULES, None, "s") as journal:
        done = threading.Event()

        def publisher() -> None:
            while not (done.is_set() and journal.backlog() == 0):
                rows = journal.pending(50)
                sent.extend(r.payload for r in rows)
                journal.mark_delivered([r.id for r in rows])
                if not rows:
                    time.sleep(0.001)

        thread = threading.Thread(target=publisher, name="test-publisher")
        thread.start()
        append_events(journal, 0, total)
        done.set()
        thread.join(timeout=60)
        assert not thread.is_alive()
    assert sent == [message(i)[0][1] for i in range(total)]
    report = verify_journal(path)
    assert (report.records, report.outbox_rows, report.undelivered) == (total, total, 0)


def test_a_second_station_cannot_open_the_same_journal(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 2)
    with Journal.open(path), pytest.raises(JournalError, match="another station"):
        Journal.open(path)
    Journal.open(path).close()  # the lock went with the first


def test_create_never_overwrites_and_open_never_creates(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 2)
    with pytest.raises(JournalError, match="already exists"):
        Journal.create(path, RULES, None, "s")
    with pytest.raises(JournalError, match="no journal there"):
        Journal.open(tmp_path / "none.sqlite3")
    assert not (tmp_path / "none.sqlite3").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j.sqlite3", "j.sqlite3-head"]


def test_a_full_disk_fails_the_append_cleanly_and_appends_resume(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 3)
    with Journal.open(path) as journal:
        # Test seam: SQLite's own page limit makes it answer SQLITE_FULL exactly as a full
        # disk does (the real-I/O-error case is the subprocess test below).
        pages = journal._writer().execute("PRAGMA page_count").fetchone()[0]
        journal._writer().execute(f"PRAGMA max_page_count = {pages}")
        big = [("events", b"x" * 20_000)]
        with pytest.raises(JournalWriteError, match=r"record 4 was not journaled: the disk is "
                                                    r"full .*unchanged"):
            journal.append(event(4), T0, 4.0, big)
        assert journal.last_seq == 3
        journal._writer().execute("PRAGMA max_page_count = 1000000")
        assert journal.append(event(4), T0, 4.0, big) == 4
    report = verify_journal(path)
    assert (report.records, report.outbox_rows) == (4, 4)


FILL_UNTIL_FAILURE = """
import resource, signal, sys, time
from pathlib import Path
from station.journal import Journal, JournalWriteError
from tests.journal.journalkit import event
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
path = Path(sys.argv[1])
with Journal.open(path) as journal:
    limit = path.stat().st_size + 64 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    for i in range(100000):
        try:
            journal.append(event(1), 1.0, 1.0, [("events", b"y" * 3000)])
        except JournalWriteError as exc:
            print(journal.last_seq, exc)
            resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
            print(journal.append(event(1), 1.0, 1.0))
            break
"""


def test_a_real_write_error_fails_the_append_and_the_journal_stays_intact(
        tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 3)
    res = subprocess.run([sys.executable, "-c", FILL_UNTIL_FAILURE, str(path)], cwd=REPO,
                         capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 0, res.stderr
    failed, resumed = res.stdout.splitlines()
    last, reason = failed.split(" ", 1)
    assert f"record {int(last) + 1} was not journaled: an I/O error" in reason
    assert "unchanged" in reason
    assert int(resumed) == int(last) + 1
    report = verify_journal(path)
    assert report.last_seq == int(resumed)


def test_an_event_that_would_not_read_back_is_refused_before_writing(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 1)
    with Journal.open(path) as journal:
        with pytest.raises(JournalWriteError, match="cannot be stored"):
            journal.append(CardRead("AS", "scanner", float("nan")), T0, 1.0)
        with pytest.raises(JournalWriteError, match="not times"):
            journal.append(event(1), float("inf"), 1.0)
        assert journal.append(event(1), T0, 1.0) == 2


def test_memory_stays_flat_while_appending(tmp_path: Path) -> None:
    with Journal.create(tmp_path / "j.sqlite3", RULES, None, "s") as journal:
        append_events(journal, 0, 300)  # warm up caches
        tracemalloc.start()
        try:
            append_events(journal, 300, 500)
            base = tracemalloc.get_traced_memory()[0]
            append_events(journal, 800, 2000)
            grown = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
    assert grown < 64 * 1024, f"memory grew by {grown} bytes over 2000 appends"


def test_creation_leaves_only_the_journal_and_its_head(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 0)
    assert {p.name for p in tmp_path.iterdir()} == {"j.sqlite3", "j.sqlite3-head"}
    assert verify_journal(path).records == 0
    assert companions(path)[2].read_text().startswith("dealer-station-journal-head v1 ")
    assert os.stat(path).st_size % 4096 == 0


def test_a_write_conflict_fails_the_append_and_leaves_no_transaction_open(
        tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 3)
    with Journal.open(path) as journal:
        # Another program writes behind the station's back: seq 4 is taken.
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("INSERT INTO events VALUES (4, 0.0, 0.0, x'00', x'00', x'00')")
        other.close()
        with pytest.raises(JournalWriteError, match="record 4 was not journaled"):
            journal.append(event(4), T0, 4.0)
        assert not journal._writer().in_transaction
        assert journal.last_seq == 3


def test_verify_while_a_station_appends_sees_an_intact_journal(tmp_path: Path) -> None:
    # Checkpoints (every 1000 WAL pages, ~250 appends here) run while verify reads; the head
    # file is read before the snapshot, so it is never ahead of what verify sees.
    path = tmp_path / "j.sqlite3"
    with Journal.create(path, RULES, None, "s") as journal:
        writer = threading.Thread(target=append_events, args=(journal, 0, 1200),
                                  name="test-appender")
        writer.start()
        seen = []
        while writer.is_alive():
            seen.append(verify_journal(path).last_seq)
        writer.join()
    assert seen == sorted(seen) and len(set(seen)) > 3
    assert verify_journal(path).last_seq == 1200


def test_close_waits_for_an_append_in_progress_on_another_thread(tmp_path: Path) -> None:
    # Closing an SQLite connection under a running statement crashes the interpreter; close
    # must wait, and appends after it must fail cleanly.
    journal = Journal.create(tmp_path / "j.sqlite3", RULES, None, "s")
    errors: list[str] = []

    def appender() -> None:
        try:
            for i in range(100_000):
                journal.append(event(i), T0, float(i), message(i))
        except JournalWriteError as exc:
            errors.append(str(exc))

    thread = threading.Thread(target=appender, name="test-appender")
    thread.start()
    while journal.last_seq < 50:
        time.sleep(0.001)
    journal.close()
    thread.join(timeout=30)
    assert errors and errors[0].endswith("the journal is closed")
    assert verify_journal(tmp_path / "j.sqlite3").last_seq == journal.last_seq
