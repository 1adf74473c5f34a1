"""Bad input: a journal cut short, edited or reordered is found at open, naming the record or
page, and never repaired. Each test works on real files in tmp_path."""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import sqlite3
import struct
from pathlib import Path

import pytest

from station.journal import Journal, JournalCorrupt, JournalError, verify_journal
from station.journal.files import companions
from station.wire.chain import outbox_digest
from tests.journal.journalkit import (
    RULES,
    append_events,
    make_journal,
    page_size,
    pages_of,
    snapshot_with_wal,
    unallocated,
)

WAL_FRAME_HEADER = 24


def open_fails(path: Path, pattern: str) -> str:
    """Journal.open (what the daemon does at start) refuses, with a message matching."""
    with pytest.raises(JournalCorrupt, match=pattern) as info:
        Journal.open(path)
    return str(info.value)


def test_an_intact_journal_verifies_and_verify_changes_nothing(tmp_path: Path) -> None:
    path = snapshot_with_wal(tmp_path / "j.sqlite3", tmp_path / "copy")
    files = [path, *companions(path)]
    before = {p.name: p.read_bytes() for p in files if p.exists()}
    report = verify_journal(path)
    assert (report.records, report.last_seq, report.notes) == (45, 45, ())
    assert {p.name: p.read_bytes() for p in files if p.name in before} == before


# CI tries every offset of the main file's last page (the promise), and a seeded
# fifth of the WAL frame and of the flips, always with the headers whole; STATION_LONG_TESTS=1
# tries every byte of all three (about 80 s more; docs/testing.md).
LONG = os.environ.get("STATION_LONG_TESTS") == "1"


def some_offsets(start: int, end: int, always: int = 32) -> list[int]:
    if LONG:
        return list(range(start, end))
    rest = range(start + always, end)
    picked = random.Random(start).sample(rest, k=len(rest) // 5)
    return sorted({*range(start, min(end, start + always)), *picked, end - 1})


def test_main_file_cut_at_every_offset_of_its_last_page(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    data = path.read_bytes()
    size = page_size(path)
    last = len(data) // size
    assert last in pages_of(path, "events") or last in pages_of(path, "outbox")
    for offset in range(size):
        path.write_bytes(data[:(last - 1) * size + offset])
        with pytest.raises(JournalCorrupt, match=rf"cut short.*page[s]? {last}\b"):
            verify_journal(path)
    open_fails(path, rf"cut short.*page[s]? {last}\b")


def test_wal_cut_at_every_offset_of_its_last_frame(tmp_path: Path) -> None:
    path = snapshot_with_wal(tmp_path / "j.sqlite3", tmp_path / "copy", count=40, more=5)
    wal = companions(path)[0]
    shm = companions(path)[1]
    data = wal.read_bytes()
    frame = WAL_FRAME_HEADER + page_size(path)
    last_frame = len(data) - frame
    assert (len(data) - 32) % frame == 0
    for offset in some_offsets(0, frame):
        wal.write_bytes(data[:last_frame + offset])
        shm.unlink(missing_ok=True)  # as after a reboot: SQLite rebuilds it from the WAL
        # The cut loses the last transaction whole (SQLite drops a torn commit): what is
        # left is a valid shorter chain, which only the head file shows to be short.
        with pytest.raises(JournalCorrupt, match=r"records 45 to 45 are missing: the head "
                                                 r"file says record 45 was committed"):
            verify_journal(path)
    message = open_fails(path, "records 45 to 45 are missing")
    assert "ends inside frame" in message
    assert wal.read_bytes() == data[:last_frame + frame - 1]  # left as found: no repair


def test_main_file_cut_in_its_last_page_with_the_wal_present(tmp_path: Path) -> None:
    path = snapshot_with_wal(tmp_path / "j.sqlite3", tmp_path / "copy")
    data = path.read_bytes()
    size = page_size(path)
    last = len(data) // size
    # Offset 0 (the whole page gone) is left out here: the WAL holds a committed copy of
    # that page, so nothing is lost (test_a_checkpoint_stopped_half_way_is_not_damage).
    for offset in range(7, size, 7):
        path.write_bytes(data[:(last - 1) * size + offset])
        companions(path)[1].unlink(missing_ok=True)
        with pytest.raises(JournalCorrupt, match=rf"cut short.*page[s]? {last}\b"):
            verify_journal(path)


def test_a_flipped_byte_anywhere_in_the_events_pages_is_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 60)
    reference = verify_journal(path)
    data = bytearray(path.read_bytes())
    size = page_size(path)
    pages = pages_of(path, "events")
    assert len(pages) >= 3  # an interior page and leaves
    harmless = tried = 0
    for page in pages:
        free = unallocated(bytes(data), page, size)
        for offset in some_offsets((page - 1) * size, page * size):
            tried += 1
            data[offset] ^= 0x01
            path.write_bytes(data)
            try:
                report = verify_journal(path)
            except JournalCorrupt as exc:
                assert re.search(r"record \d+|page \d+", str(exc), re.IGNORECASE), exc
            else:
                # Only a byte no reader looks at can change without notice, and then
                # nothing that matters changed.
                assert offset in free, f"flip at page {page} byte {offset % size} not found"
                assert report.head_hash == reference.head_hash
                harmless += 1
            finally:
                data[offset] ^= 0x01
    assert harmless < tried // 2
    path.write_bytes(data)
    assert verify_journal(path).head_hash == reference.head_hash


def edit(path: Path, *sql: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in sql:
            conn.execute(statement)
    finally:
        conn.close()


def test_a_swapped_pair_of_records_is_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    cols = "wall_ts, mono_ts, body, outbox_digest, hash"
    edit(path, "CREATE TEMP TABLE t AS SELECT * FROM events WHERE seq IN (10, 11)",
         *(f"UPDATE events SET ({cols}) = (SELECT {cols} FROM t WHERE seq = {b}) "
           f"WHERE seq = {a}" for a, b in ((10, 11), (11, 10))))
    open_fails(path, r"record 10: its content does not match its hash \(edited, or swapped")


def test_two_cells_swapped_on_a_page_are_found(tmp_path: Path) -> None:
    # Below SQL: the page's cell pointers for records 10 and 11 exchanged, so the records
    # come back in the wrong order.
    path = make_journal(tmp_path / "j.sqlite3")
    data = bytearray(path.read_bytes())
    size = page_size(path)
    leaf = pages_of(path, "events")[1]  # [0] is the interior root
    base = (leaf - 1) * size
    assert data[base] == 13  # a table leaf
    p = base + 8 + 2 * 9  # pointers of the leaf's 10th and 11th cells
    data[p:p + 2], data[p + 2:p + 4] = data[p + 2:p + 4], data[p:p + 2]
    path.write_bytes(data)
    open_fails(path, r"record 10: missing or out of place \(the record after 9 is 11\)")


def test_two_pages_swapped_are_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 80)
    data = bytearray(path.read_bytes())
    size = page_size(path)
    a, b = pages_of(path, "events")[1:3]
    pa, pb = slice((a - 1) * size, a * size), slice((b - 1) * size, b * size)
    data[pa], data[pb] = data[pb], data[pa]
    path.write_bytes(data)
    open_fails(path, r"record 1: missing or out of place")


def test_an_edited_event_is_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    edit(path, "UPDATE events SET body = CAST(replace(CAST(body AS TEXT), 'AS', 'KS') AS BLOB)"
               " WHERE seq = 7")
    open_fails(path, r"record 7: its content does not match its hash")


def test_an_edited_outbox_row_is_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    edit(path, "UPDATE outbox SET payload = X'00' WHERE id = 12")
    open_fails(path, r"record 12: its outbox rows differ")


def test_an_outbox_row_rewritten_with_its_digest_is_found_by_the_chain(tmp_path: Path) -> None:
    """Rewriting a message and the record's stored outbox digest together passes the digest
    check: only the chain, whose hash covers that digest, can find it."""
    path = make_journal(tmp_path / "j.sqlite3")
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        rows = conn.execute("SELECT topic, payload FROM outbox WHERE seq = 12 ORDER BY id")
        messages = [(t, p) for t, p in rows.fetchall()]
        assert messages, "record 12 caused no message"
        topic, payload = messages[0]
        forged = payload.replace(b"1", b"2") if b"1" in payload else payload + b" "
        messages[0] = (topic, forged)
        conn.execute("UPDATE outbox SET payload = ? WHERE id = (SELECT min(id) FROM outbox "
                     "WHERE seq = 12)", (forged,))
        conn.execute("UPDATE events SET outbox_digest = ? WHERE seq = 12",
                     (outbox_digest(messages),))
    finally:
        conn.close()
    open_fails(path, r"record 12: its content does not match its hash")


def test_a_moved_outbox_row_is_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    edit(path, "UPDATE outbox SET seq = 13 WHERE id = 12")
    open_fails(path, r"record 13: outbox row 12 \(for record 13\) is out of order|"
                     r"record 12: its outbox rows differ")


def test_deleted_last_records_are_found_by_the_head_row(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    edit(path, "DELETE FROM outbox WHERE seq > 37", "DELETE FROM events WHERE seq > 37")
    open_fails(path, r"records 38 to 40 are missing: the head row says 40")


def test_deleted_last_records_with_the_head_row_rewritten_are_found_by_the_head_file(
        tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    edit(path, "DELETE FROM outbox WHERE seq > 37", "DELETE FROM events WHERE seq > 37",
         "UPDATE head SET (seq, hash) = (SELECT seq, hash FROM events WHERE seq = 37)")
    open_fails(path, r"records 38 to 40 are missing: the head file says record 40")


def test_a_journal_without_its_head_file_verifies_with_a_note(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    companions(path)[2].unlink()
    report = verify_journal(path)
    assert report.records == 40
    assert any("no head file" in n and "cannot be detected" in n for n in report.notes)
    with Journal.open(path) as journal:  # the station writes a new one
        assert journal.notes == report.notes
    assert verify_journal(path).notes == ()


def test_a_head_file_of_another_journal_is_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    other = make_journal(tmp_path / "other.sqlite3", 2)
    shutil.copyfile(companions(other)[2], companions(path)[2])
    open_fails(path, "head file j.sqlite3-head belongs to another journal")


def test_an_edited_header_is_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    edit(path, "UPDATE meta SET value = CAST(replace(CAST(value AS TEXT), '\"decks\":8', "
               "'\"decks\":6') AS BLOB) WHERE key = 'header'")
    open_fails(path, "the header was changed")


def test_an_edited_header_with_its_digest_recomputed_breaks_record_1(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    conn = sqlite3.connect(path, isolation_level=None)
    (header,) = conn.execute("SELECT value FROM meta WHERE key = 'header'").fetchone()
    header = header.replace(b'"decks":8', b'"decks":6')
    conn.execute("UPDATE meta SET value = ? WHERE key = 'header'", (header,))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'header_sha256'",
                 (hashlib.sha256(header).digest(),))
    conn.close()
    companions(path)[2].unlink()  # else the head file names the old header
    open_fails(path, r"record 1: its content does not match its hash")


def test_an_added_trigger_is_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    edit(path, "CREATE TRIGGER t AFTER INSERT ON events BEGIN SELECT 1; END")
    open_fails(path, r"the schema is not a journal's \(unexpected or altered: trigger t")


def test_a_flipped_delivery_mark_is_found_by_sqlite(tmp_path: Path) -> None:
    # delivered 0 -> 1 would lose a message. SQLite stores 0 and 1 as record types 8 and 9:
    # one bit. The partial index of undelivered rows then disagrees with the table.
    path = make_journal(tmp_path / "j.sqlite3")
    data = bytearray(path.read_bytes())
    size = page_size(path)
    (page,) = pages_of(path, "outbox")
    base = (page - 1) * size
    (cells,) = struct.unpack_from(">H", data, base + 3)
    (cell,) = struct.unpack_from(">H", data, base + 8 + 2 * (cells - 1))  # last row
    header_at = base + cell + 2  # payload length and rowid: one byte each here
    types = data[header_at + 1:header_at + data[header_at]]
    assert types[-1] == 8  # delivered = 0
    data[header_at + data[header_at] - 1] = 9
    path.write_bytes(data)
    open_fails(path, r"integrity check finds damage: .*outbox_pending")


def test_files_that_are_not_journals_are_refused_as_such(tmp_path: Path) -> None:
    text = tmp_path / "r.jsonl"
    text.write_text('{"format": "dealer-station-recording"}\n')
    other = tmp_path / "o.db"
    sqlite3.connect(other).execute("CREATE TABLE x (y)").connection.close()
    empty = tmp_path / "e"
    empty.touch()
    for path, pattern in ((text, "not an SQLite database"), (empty, "not an SQLite database"),
                          (other, "not a station journal"), (tmp_path, "is a directory"),
                          (tmp_path / "none", "cannot read")):
        with pytest.raises(JournalError, match=pattern) as info:
            verify_journal(path)
        assert not isinstance(info.value, JournalCorrupt)


def test_a_refused_journal_is_left_as_found(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    edit(path, "UPDATE events SET mono_ts = 0 WHERE seq = 3")
    before = path.read_bytes(), companions(path)[2].read_bytes()
    message = open_fails(path, "record 3: its content does not match its hash")
    assert str(path) in message and "start the station on a new journal" in message
    assert (path.read_bytes(), companions(path)[2].read_bytes()) == before
    with Journal.create(tmp_path / "new.sqlite3", RULES, None, "s") as journal:
        append_events(journal, 0, 1)


def test_a_cut_is_found_even_when_sqlite_would_not_trust_the_page_count(
        tmp_path: Path) -> None:
    # An old writer leaves the header's page count stale (its "version-valid-for" field
    # differs from the change counter); SQLite then sizes the database by the file.
    path = make_journal(tmp_path / "j.sqlite3")
    data = bytearray(path.read_bytes())
    data[92:96] = (struct.unpack_from(">I", data, 92)[0] + 1).to_bytes(4, "big")
    last = len(data) // page_size(path)
    path.write_bytes(data[:-100])
    open_fails(path, rf"cut short inside page {last}:")


def wal_frames(wal: Path, size: int) -> list[tuple[int, bool, bytes]]:
    """(page number, commit frame?, page data) of every frame of ``wal``."""
    data = wal.read_bytes()
    frames = []
    for at in range(32, len(data) - 24 - size + 1, 24 + size):
        pgno, commit = struct.unpack_from(">II", data, at)
        frames.append((pgno, commit != 0, data[at + 24:at + 24 + size]))
    return frames


def test_a_checkpoint_stopped_half_way_is_not_damage(tmp_path: Path) -> None:
    # What kill -9 during a checkpoint leaves: page 1 (with the new page count) written to the
    # main file, the pages that extend it not yet; the WAL still holds them all. Found by the
    # kill tests of the daemon (tests/journal/test_durability.py), which a verify refused to start.
    path = snapshot_with_wal(tmp_path / "j.sqlite3", tmp_path / "copy", count=40, more=60)
    size = page_size(path)
    frames = wal_frames(companions(path)[0], size)
    page1 = [d for pgno, _, d in frames if pgno == 1][-1]
    data = bytearray(path.read_bytes())
    data[:size] = page1
    path.write_bytes(data)
    (counted,) = struct.unpack_from(">I", page1, 28)
    assert counted > len(data) // size  # the header counts pages the file does not have yet
    # A page the WAL does not hold is still missing, and found (on a copy without the WAL's
    # frames).
    bare = tmp_path / "bare" / path.name
    bare.parent.mkdir()
    shutil.copyfile(path, bare)
    shutil.copyfile(companions(path)[2], companions(bare)[2])
    companions(bare)[0].write_bytes(companions(path)[0].read_bytes()[:32])
    with pytest.raises(JournalCorrupt, match="cut short"):
        verify_journal(bare)
    report = verify_journal(path)
    assert report.last_seq == 100
    with Journal.open(path) as journal:
        assert [r.seq for r in journal.records()][-1] == 100
