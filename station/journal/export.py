"""Reading a journal as a recording: for ``station replay`` and ``station journal export``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from drivers.events import InputEvent
from station.journal.files import SQLITE_MAGIC
from station.journal.schema import connect
from station.journal.verify import READ_ERRORS, Record, Report, sqlite_failure, verify_journal, walk
from station.wire.recording import Recorder, Recording


def is_journal_file(path: Path) -> bool:
    """Whether ``path`` looks like a journal (an SQLite file) rather than a JSON Lines
    recording; ``False`` if it cannot be read (the reader then says why)."""
    try:
        with path.open("rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except (OSError, ValueError):  # ValueError: a NUL in the name; the reader says why
        return False


def read_journal(path: Path) -> Recording:
    """The journal as a ``Recording``: verified whole first (raises ``JournalError``, or
    ``JournalCorrupt`` naming the record), then its events, read lazily."""
    report = verify_journal(path)
    h = report.header
    return Recording(h.rules, h.paytable, h.session, _events(report))


def export_journal(path: Path, out: IO[str]) -> Report:
    """Write the journal to ``out`` in the JSON Lines recording format, header first; the
    journal is verified whole before the first byte is written. Raises ``JournalError``."""
    report = verify_journal(path)
    h = report.header
    recorder = Recorder(out, h.rules, h.paytable, session=h.session)
    for event in _events(report):
        recorder.write(event)
    return report


def _events(report: Report) -> Iterator[InputEvent]:
    for record in records(report):
        yield record.event


def records(report: Report) -> Iterator[Record]:
    """The verified journal's records, each checked against the chain again as it is read
    (the file could change between verification and here)."""
    path = report.path
    try:
        conn = connect(path, readonly=True)
    except sqlite3.Error as exc:
        raise sqlite_failure(path, exc, "opening") from exc
    where = "reading record 1"
    try:
        conn.execute("BEGIN")
        for record in walk(path, conn, report.journal_id):
            where = f"reading the record after {record.seq}"
            yield record
    except READ_ERRORS as exc:
        raise sqlite_failure(path, exc, where) from exc
    finally:
        conn.close()
