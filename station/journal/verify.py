"""Verification: everything a journal must satisfy, checked in one read transaction.

Nothing here writes: the database is opened read-only (so SQLite keeps its WAL as found) and a
damaged journal is reported, never repaired. ``JournalCorrupt`` names the first bad record
(or page) and says what to do; ``JournalError`` means the file is not a journal at all.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from drivers.events import InputEvent
from station.journal.codec import JournalHeader, decode_event, parse_header
from station.journal.errors import JournalCorrupt, JournalError
from station.journal.files import WHAT_TO_DO, FileFacts, check_files, companions
from station.journal.schema import AUTO_INDEXES, TABLES, connect
from station.journal.witness import Witness, in_use, read_witness
from station.wire.chain import HASH_SIZE, outbox_digest, record_hash

INTEGRITY_LINES = 5
LIVE_SETTLE_S = 1.0  # a checkpoint extending the file finishes well within this
# SQLite result codes that mean "the bytes are wrong", as opposed to "cannot get at them".
_DAMAGE_CODES = ("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_FORMAT", "SQLITE_MISMATCH")


@dataclass(frozen=True, slots=True)
class Record:
    seq: int
    wall_ts: float  # time.time() when journaled
    mono_ts: float  # time.monotonic() when journaled
    event: InputEvent
    hash: bytes  # H(seq)
    # The outbox rows written with it, (topic, payload), as checked against its digest.
    messages: tuple[tuple[str, bytes], ...] = ()


@dataclass(frozen=True, slots=True)
class Report:
    path: Path
    header: JournalHeader
    journal_id: bytes  # SHA-256 of the header: H(0)
    records: int
    last_seq: int
    head_hash: bytes
    outbox_rows: int
    undelivered: int
    notes: tuple[str, ...]  # things verification could not check, to show the operator


# What reading a damaged database can raise: SQLite's errors, and, when SQLite's own error
# message quotes garbled schema text, a decode error from Python's driver.
READ_ERRORS = (sqlite3.Error, UnicodeDecodeError)


def sqlite_failure(path: Path, exc: sqlite3.Error | UnicodeDecodeError,
                   where: str) -> JournalError:
    """The exception to raise for an error met ``where``: damage, or no access."""
    if isinstance(exc, UnicodeDecodeError):
        return JournalCorrupt(f"{path}: {where}: the database is damaged (garbled text); "
                              f"{WHAT_TO_DO}")
    name = str(getattr(exc, "sqlite_errorname", ""))
    if name.startswith(_DAMAGE_CODES):
        return JournalCorrupt(f"{path}: {where}: the database is damaged ({exc}); {WHAT_TO_DO}")
    return JournalError(f"{path}: {where}: cannot read the journal ({exc}); check that the "
                        "file and its directory are readable and no other program locks it")


def verify_journal(path: Path, *, live: bool = True, frozen: bool = False) -> Report:
    """Check the files, the schema, the header, every record's hash and outbox rows, the head
    row, the head file and SQLite's integrity check. Raises ``JournalCorrupt`` or
    ``JournalError``; memory use does not grow with the journal. ``live=False`` says no
    station can be writing meanwhile (the caller holds the journal's lock). ``frozen``: no
    station writes it and its WAL holds nothing (a journal moved aside, ``frozen(path)``):
    read without writing anything beside it (``schema.connect``)."""
    if "\0" in str(path):
        raise JournalError(f"{str(path)!r}: a file name cannot contain a NUL byte")
    if not path.name:
        raise JournalError(f"{str(path)!r}: names a folder, not a journal file; give the "
                           "journal's file name")
    witness_path = companions(path)[2]
    facts = _settled_files(path, witness_path) if live and not frozen else check_files(path)
    notes: list[str] = []
    witness: Witness | None = None
    try:
        # Read before the database's snapshot: a station appending meanwhile writes the head
        # file after its commit, so the file can only be behind what the snapshot shows.
        witness = read_witness(witness_path)
        if witness is None:
            notes.append(f"no head file {witness_path.name}: a lost tail of records cannot be "
                         "detected (the station writes it; copy it along with the journal)")
    except ValueError as exc:
        notes.append(f"the head file {witness_path.name} is unreadable ({exc}): a lost tail of "
                     "records cannot be detected")
    try:
        conn = connect(path, readonly=True, frozen=frozen)
    except sqlite3.Error as exc:
        raise sqlite_failure(path, exc, "opening") from exc
    checker = _Checker(path, conn)
    try:
        conn.execute("BEGIN")
        return checker.run(witness, notes, facts.wal_note)
    except READ_ERRORS as exc:
        raise sqlite_failure(path, exc, checker.where) from exc
    finally:
        conn.close()


def _settled_files(path: Path, witness_path: Path) -> FileFacts:
    """``check_files``, allowing for a station checkpointing meanwhile: SQLite writes the
    header page (with the new page count) before the pages that extend the file, so a live
    journal can look cut short for a moment. Only then is the check repeated."""
    deadline = time.monotonic() + LIVE_SETTLE_S
    while True:
        try:
            return check_files(path)
        except JournalCorrupt:
            if time.monotonic() > deadline or not in_use(witness_path):
                raise
            time.sleep(0.05)


def read_header(path: Path, conn: sqlite3.Connection) -> tuple[JournalHeader, bytes]:
    """The parsed header and ``H(0)``; raises ``JournalCorrupt`` or ``sqlite3.Error``."""
    # The storage types are read too: a key stored as a BLOB reads back as the same bytes as
    # the TEXT one, so without them a second "header" row could hide behind the first. Three
    # rows at most: enough to say the count is wrong, however many were added.
    found = conn.execute("SELECT key, value, typeof(key) = 'text' AND typeof(value) = 'blob' "
                         "FROM meta LIMIT 3").fetchall()
    if len(found) != 2:
        raise JournalCorrupt(f"{path}: the meta table holds {_count(len(found))} where a "
                             "journal has exactly two (the header and its SHA-256): rows were "
                             f"removed or added; {WHAT_TO_DO}")
    rows = {key: value for key, value, typed in found if typed == 1}
    header, digest = rows.get(b"header"), rows.get(b"header_sha256")
    if header is None or digest is None:
        raise JournalCorrupt(f"{path}: the meta table's rows are not the header and its SHA-256 "
                             "(a key renamed or doubled, or a value of the wrong type): the "
                             f"header was edited; {WHAT_TO_DO}")
    if hashlib.sha256(header).digest() != digest:
        raise JournalCorrupt(f"{path}: the header was changed (its SHA-256 no longer matches "
                             f"the one stored at creation); {WHAT_TO_DO}")
    try:
        return parse_header(header), digest
    except ValueError as exc:
        raise JournalCorrupt(f"{path}: the header is unreadable: {exc}; {WHAT_TO_DO}") from exc


def walk(path: Path, conn: sqlite3.Connection, journal_id: bytes,
         witness: Witness | None = None) -> Iterator[Record]:
    """Every record in order, each checked against the chain and its outbox rows before it is
    yielded. Raises ``JournalCorrupt`` at the first bad one, or ``sqlite3.Error``."""
    prev, expected = journal_id, 1
    # The storage types are checked too: bytes stored as TEXT instead of BLOB read back the
    # same, so one flipped type bit would otherwise pass unseen.
    # A delivery mark that is not the integer 0 or 1 would be counted neither delivered nor
    # pending: its message would never be sent, and never missed.
    outbox = conn.execute("SELECT id, seq, topic, payload, typeof(topic) = 'text' AND "
                          "typeof(payload) = 'blob' AND typeof(delivered) = 'integer' AND "
                          "delivered IN (0, 1) FROM outbox ORDER BY id")
    row = outbox.fetchone()
    events = conn.execute("SELECT seq, wall_ts, mono_ts, body, outbox_digest, hash, "
                          "typeof(body) = 'blob' AND typeof(outbox_digest) = 'blob' AND "
                          "typeof(hash) = 'blob' FROM events ORDER BY seq")
    for seq, wall, mono, body, digest, stored, typed in events:
        def bad(problem: str, seq: object = seq) -> JournalCorrupt:
            return JournalCorrupt(f"{path}: record {seq}: {problem}; {WHAT_TO_DO}")
        if seq != expected:
            if isinstance(seq, int) and seq > expected:
                raise bad(f"missing or out of place (the record after {expected - 1} is "
                          f"{seq})", expected)
            raise bad(f"out of order (expected record {expected} here)")
        if not (isinstance(wall, float) and isinstance(mono, float)
                and isinstance(body, bytes) and isinstance(digest, bytes)
                and isinstance(stored, bytes) and len(stored) == HASH_SIZE and typed == 1):
            raise bad("a column has the wrong type (the row was edited)")
        messages: list[tuple[str, bytes]] = []
        while row is not None and (not isinstance(row[1], int) or row[1] <= seq):
            out_id, out_seq, topic, payload, out_typed = row
            if not isinstance(out_seq, int):
                raise bad(f"outbox row {out_id} names no record (its seq is {out_seq!r})")
            if out_seq != seq or out_typed != 1:
                raise bad(f"outbox row {out_id} (for record {out_seq}) is out of order or "
                          "edited")
            try:
                messages.append((topic.decode(), payload))
            except UnicodeDecodeError:
                raise bad(f"outbox row {out_id} has a garbled topic") from None
            row = outbox.fetchone()
        digest_now = record_hash(prev, seq=seq, wall_ts=wall, mono_ts=mono, digest=digest,
                                 body=body)
        if digest_now != stored:
            raise bad("its content does not match its hash (edited, or swapped with another "
                      "record)")
        if outbox_digest(messages) != digest:
            raise bad("its outbox rows differ from those written with it (edited, moved or "
                      "removed)")
        if stored == prev:
            raise bad("its hash repeats the previous one")
        if witness is not None and witness.seq == seq and witness.hash != stored:
            raise bad("differs from the record the station wrote (the head file holds "
                      "another hash for it)")
        try:
            event = decode_event(body)
        except ValueError as exc:
            raise bad(f"not an event ({exc})") from None
        yield Record(seq, wall, mono, event, stored, tuple(messages))
        prev, expected = stored, expected + 1
    if row is not None:
        raise JournalCorrupt(f"{path}: outbox row {row[0]} (for record {row[1]}) follows the "
                             f"last record, {expected - 1}; {WHAT_TO_DO}")


class _Checker:
    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path, self.conn = path, conn
        self.where = "reading the schema"

    def fail(self, problem: str) -> JournalCorrupt:
        return JournalCorrupt(f"{self.path}: {problem}; {WHAT_TO_DO}")

    def run(self, witness: Witness | None, notes: list[str], wal_note: str) -> Report:
        self.check_schema()
        self.where = "reading the header"
        header, journal_id = read_header(self.path, self.conn)
        if witness is not None and witness.journal_id != journal_id:
            raise self.fail(f"the head file {companions(self.path)[2].name} belongs to another "
                            "journal (its journal id differs)")
        last, prev, records = 0, journal_id, 0
        self.where = "reading record 1"
        try:
            for record in walk(self.path, self.conn, journal_id, witness):
                self.where = f"reading record {record.seq + 1}"
                last, prev, records = record.seq, record.hash, records + 1
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            # SQLite stopped on a damaged page: its integrity check may say which one.
            findings = self.integrity_findings()
            raise self.fail(f"{self.where}: the database is damaged ({exc})"
                            + (f"; {findings}" if "finds" in findings else "")) from exc
        self.where = "reading the head row"
        head_seq, head_hash = self.head_row()
        cut = f"; {wal_note}" if wal_note else ""
        if head_seq != last:
            if isinstance(head_seq, int) and head_seq > last:
                raise self.fail(f"records {last + 1} to {head_seq} are missing: the head row "
                                f"says {head_seq} were written, the last is {last}{cut}")
            raise self.fail(f"record {head_seq + 1 if isinstance(head_seq, int) else '?'} on "
                            f"was added without the head row (the head says {head_seq!r}, "
                            f"the last record is {last})")
        if head_hash != prev:
            raise self.fail(f"record {last}: its hash differs from the head row's")
        if witness is not None and witness.seq > last:
            raise self.fail(f"records {last + 1} to {witness.seq} are missing: the head file "
                            f"says record {witness.seq} was committed, the journal ends at "
                            f"{last} (cut short?){cut}")
        if witness is not None and witness.seq == 0 and witness.hash != journal_id:
            raise self.fail("the head file's hash for record 0 is not the header's")
        self.where = "running SQLite's integrity check"
        self.integrity()
        self.where = "counting the outbox"
        total, undelivered = self.conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE delivered = 0) FROM outbox").fetchone()
        return Report(self.path, header, journal_id, records, last, prev, total, undelivered,
                      tuple(notes))

    def head_row(self) -> tuple[int, bytes]:
        """The head table's one row. SQLite's constraints keep it one row of an integer and a
        BLOB only while nobody edits the file with constraint checks off, so it is checked."""
        rows = self.conn.execute("SELECT seq, hash, typeof(hash) FROM head LIMIT 3").fetchall()
        if len(rows) != 1:
            raise self.fail(f"the head table holds {_count(len(rows))} where a journal has "
                            "exactly one (the last record's seq and hash): rows were removed "
                            "or added")
        (seq, digest, kind), = rows
        if not isinstance(seq, int) or not isinstance(digest, bytes) or kind != b"blob" \
                or len(digest) != HASH_SIZE:
            raise self.fail(f"the head row has the wrong type (seq {_short(seq)}, hash "
                            f"{_short(digest)} as {_text(kind)}, where a station writes a whole "
                            f"number and a {HASH_SIZE}-byte BLOB): the row was edited")
        return seq, digest

    def check_schema(self) -> None:
        found = {(_text(t), _text(n), None if s is None else _text(s))
                 for t, n, s in self.conn.execute("SELECT type, name, sql FROM sqlite_schema")}
        expected = set(TABLES) | {(t, n, None) for t, n in AUTO_INDEXES}
        if found != expected:
            extra = sorted(f"{t} {n}" for t, n, _ in found - expected)
            missing = sorted(f"{t} {n}" for t, n, _ in expected - found)
            raise self.fail(f"the schema is not a journal's (unexpected or altered: "
                            f"{', '.join(extra) or 'none'}; missing: "
                            f"{', '.join(missing) or 'none'})")

    def integrity(self) -> None:
        findings = self.integrity_findings()
        if findings:
            raise self.fail(findings)

    def integrity_findings(self) -> str:
        """What SQLite's integrity check finds, tables named; "" if nothing."""
        try:
            lines = [_text(r[0]) for r in
                     self.conn.execute(f"PRAGMA integrity_check({INTEGRITY_LINES})")]
        except READ_ERRORS as exc:
            # Some damage (a zeroed page, say) stops the check itself: check each table and
            # index alone to say where.
            return f"SQLite's integrity check stops ({exc}){self.where_check_stops()}"
        if lines == ["ok"]:
            return ""
        try:
            roots = {str(root): _text(name) for name, root in
                     self.conn.execute("SELECT name, rootpage FROM sqlite_schema")}
        except READ_ERRORS:
            roots = {}
        roots["1"] = "sqlite_schema"

        def named(line: str) -> str:
            return re.sub(r"\bTree (\d+)\b",
                          lambda m: f"{roots.get(m[1], '?')} (tree {m[1]})", line)
        return ("SQLite's integrity check finds damage: "
                + "; ".join(named(x.strip()) for x in lines if x.strip()))

    def where_check_stops(self) -> str:
        for kind, name, _ in TABLES:
            try:
                self.conn.execute(f"PRAGMA integrity_check({name})").fetchall()
            except READ_ERRORS:
                return f" in {kind} {name}" + (" or its indexes" if kind == "table" else "")
        return ""


def _count(rows: int) -> str:
    """How many rows a query with ``LIMIT 3`` found, said as such."""
    return {0: "no rows", 1: "1 row", 2: "2 rows"}.get(rows, "3 rows or more")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _text(value: object) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)
