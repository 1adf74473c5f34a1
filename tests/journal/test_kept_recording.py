"""The recording kept beside a journal (issue 18, defect 8): one file per journal, the
journal's export byte for byte, brought up to date at each start without a second copy; a
file that disagrees with the journal is left as found. Real journals and files in tmp_path,
and a real daemon killed with SIGKILL."""

from __future__ import annotations

import io
import signal
from pathlib import Path

import yaml

from station.journal import Journal, export_journal
from station.journal.keptrecording import KeptRecording, series
from station.wire.recording import header_line, read_recording
from tests.journal.journalkit import RULES, append_events, make_journal
from tests.stationkit import finish, journaled, start, table_config, wait_for

STEM = "t1-20260101T000000Z-test"
HEADER = header_line(RULES, None, "test").encode()


def export(path: Path) -> bytes:
    out = io.StringIO()
    export_journal(path, out)
    return out.getvalue().encode()


def start_copy(folder: Path, journal: Path) -> KeptRecording:
    """What a start does: open the recording, sync it with every record, done."""
    kept = KeptRecording(folder, STEM, HEADER)
    with Journal.open(journal) as j:
        for record in j.records():
            kept.sync(record.event)
    kept.done()
    return kept


def test_a_new_recording_is_the_journals_export(tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite3", 12)
    kept = start_copy(tmp_path, journal)
    kept.close()
    assert kept.path == tmp_path / f"{STEM}.jsonl"
    assert kept.path.read_bytes() == export(journal)
    assert kept.appended == 13  # the header and 12 events


def test_an_up_to_date_recording_is_only_read(tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite3", 12)
    start_copy(tmp_path, journal).close()
    before = (tmp_path / f"{STEM}.jsonl").stat()
    kept = start_copy(tmp_path, journal)
    kept.close()
    assert kept.appended == 0
    assert kept.path.stat().st_mtime_ns == before.st_mtime_ns


def test_a_recording_behind_the_journal_gets_only_what_it_lacks(tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite3", 12)
    start_copy(tmp_path, journal).close()
    with Journal.open(journal) as j:
        append_events(j, 12, 5)
    kept = start_copy(tmp_path, journal)
    kept.close()
    assert kept.appended == 5
    assert series(tmp_path, STEM) == [kept.path]
    assert kept.path.read_bytes() == export(journal)


def test_a_line_cut_short_by_a_crash_is_written_again_whole(tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite3", 12)
    full = export(journal)
    path = tmp_path / f"{STEM}.jsonl"
    for cut in (len(full) - 1, len(full) - 20, len(HEADER) - 3, 0):
        path.write_bytes(full[:cut])
        start_copy(tmp_path, journal).close()
        assert series(tmp_path, STEM) == [path]
        assert path.read_bytes() == full


def test_a_recording_that_disagrees_is_kept_as_found_and_the_copy_goes_on_beside_it(
        tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite3", 12)
    full = export(journal)
    path = tmp_path / f"{STEM}.jsonl"
    edited = full.replace(b'"code":"AS"', b'"code":"KS"', 3)
    path.write_bytes(edited)
    kept = start_copy(tmp_path, journal)
    kept.close()
    assert path.read_bytes() == edited  # evidence: never rewritten
    assert kept.path == tmp_path / f"{STEM}-2.jsonl"
    assert kept.path.read_bytes() == full
    # The next start carries on in the new file: no third copy.
    with Journal.open(journal) as j:
        append_events(j, 12, 2)
    again = start_copy(tmp_path, journal)
    again.close()
    assert again.path == kept.path and again.appended == 2
    assert series(tmp_path, STEM) == [path, kept.path]


def test_lines_past_the_journals_end_are_not_the_journals(tmp_path: Path) -> None:
    # What a station before issue 18 could leave: an event written to the recording before
    # the journal's commit, and a crash in between.
    journal = make_journal(tmp_path / "j.sqlite3", 12)
    full = export(journal)
    path = tmp_path / f"{STEM}.jsonl"
    path.write_bytes(full + b'{"t":1767225700.0,"e":"card","code":"9H","src":"scanner"}\n')
    kept = start_copy(tmp_path, journal)
    kept.close()
    assert kept.path.name == f"{STEM}-2.jsonl"
    assert kept.path.read_bytes() == full


def test_a_failed_write_never_stops_the_table(tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite3", 3)
    kept = start_copy(tmp_path, journal)
    kept.close()  # a write now fails, as on a full disk
    with Journal.open(journal) as j:
        record = next(iter(j.records()))
    kept.write(record.event)
    kept.write(record.event)  # logged once, never raised


def test_kill_9_and_restarts_leave_one_recording_equal_to_the_journal(tmp_path: Path) -> None:
    # A kill can land between a commit and the recording's write, or inside the line: the
    # next start completes the file from the journal.
    config = table_config(tmp_path, seed=5, upstream={"type": "file",
                                                      "path": str(tmp_path / "up.jsonl")})
    data = yaml.safe_load(config.read_text())
    data["recording"] = {"dir": str(tmp_path / "rec")}
    config.write_text(yaml.safe_dump(data))
    journal = tmp_path / "journal.sqlite3"
    for _ in range(3):
        proc = start(config)
        target = journaled(journal) + 15
        try:
            wait_for(lambda t=target: journaled(journal) >= t, 60, "records")  # type: ignore[misc]
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
    proc = start(config)
    finish(proc, config, timeout_s=120)  # one simulated shoe: it stops by itself
    (rec,) = (tmp_path / "rec").iterdir()
    assert rec.read_bytes() == export(journal)
    assert list(read_recording(rec).events)  # and replay reads it


def test_a_recording_that_cannot_be_opened_stops_the_start_naming_it(tmp_path: Path) -> None:
    from station.errors import ConfigError  # noqa: PLC0415
    from station.live.assembly import build_daemon  # noqa: PLC0415
    from station.live.config import parse_config  # noqa: PLC0415
    from tests.daemon.test_daemon import config_dict  # noqa: PLC0415

    config = parse_config(tmp_path / "s.yaml", config_dict(tmp_path))
    build_daemon(config).close()
    (rec,) = (tmp_path / "rec").iterdir()
    rec.unlink()
    rec.mkdir()  # something in the way that is not a file
    try:
        build_daemon(config).close()
    except ConfigError as exc:
        assert "recording.dir: cannot write a recording in" in str(exc)
        assert f"({rec}: Is a directory)" in str(exc)
    else:
        raise AssertionError("the start went on")
