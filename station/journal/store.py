"""The journal: an SQLite database (WAL, ``synchronous=FULL``) the station appends every input
event to, with the outbox rows it caused, in one durable transaction, before applying it.

Threads: ``append`` and ``close`` belong to the station loop; the ``Outbox`` methods
(``pending``, ``mark_delivered``, ``backlog``) may be called from a publisher thread at the same
time, and use a connection of their own. Memory does not grow with the journal: only the head
(last seq and hash) is kept.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from drivers.events import InputEvent
from station.journal.codec import JournalHeader, encode_event, new_header
from station.journal.errors import JournalError, JournalWriteError
from station.journal.files import companions
from station.journal.outbox import OutboxRow
from station.journal.schema import connect, create_schema
from station.journal.verify import READ_ERRORS, Record, sqlite_failure, verify_journal, walk
from station.journal.witness import WitnessWriter
from station.settings.paytable import Paytable
from station.table.tablerules import TableRules
from station.wire.chain import header_hash, outbox_digest, record_hash

log = logging.getLogger(__name__)
_MARK_CHUNK = 500  # ids per UPDATE: well under SQLite's bound-parameter limit

_REASONS = {
    "SQLITE_FULL": "the disk is full",
    "SQLITE_IOERR": "an I/O error",
    "SQLITE_BUSY": "another program holds the journal locked",
    "SQLITE_READONLY": "the journal is read-only",
    "SQLITE_CANTOPEN": "the journal cannot be opened",
    "SQLITE_CORRUPT": "the journal is damaged",
}


def _reason(exc: sqlite3.Error) -> str:
    name = str(getattr(exc, "sqlite_errorname", ""))
    for prefix, reason in _REASONS.items():
        if name.startswith(prefix):
            return f"{reason} ({exc})"
    return str(exc)


class Journal:
    """An open journal, verified and locked (one station per journal). Use ``create`` for a
    new one and ``open`` for an existing one; both raise ``JournalError`` (``JournalCorrupt``
    when verification fails, naming the record)."""

    def __init__(self, path: Path, witness: WitnessWriter) -> None:
        # Private: the classmethods below are the way in.
        self.path = path
        self._lock = threading.Lock()  # the writer connection: append, close
        self._out_lock = threading.Lock()  # the outbox connection: publisher calls, close
        self._witness: WitnessWriter | None = witness
        report = verify_journal(path, live=False)
        self.header: JournalHeader = report.header
        self.journal_id = report.journal_id
        self.notes = report.notes
        self._seq, self._hash = report.last_seq, report.head_hash
        # The committed head as one value, replaced whole: a publisher thread reads it.
        self._committed = (self.journal_id, self._seq, self._hash)
        try:
            conn = connect(path, readonly=False)
        except sqlite3.Error as exc:
            raise sqlite_failure(path, exc, "opening for writing") from exc
        self._conn: sqlite3.Connection | None = conn
        try:
            if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0] != b"wal":
                raise JournalError(f"{path}: SQLite cannot use WAL mode on this file system; "
                                   "put the journal on a local disk")
            conn.execute("PRAGMA synchronous = FULL")
        except sqlite3.Error as exc:
            self.close()
            raise sqlite_failure(path, exc, "opening for writing") from exc
        except JournalError:
            self.close()
            raise
        self._out: sqlite3.Connection | None = None
        self._broken = ""
        self._witness_failed = False
        self._write_witness()

    @classmethod
    def open(cls, path: Path) -> Journal:
        """Verify and open an existing journal for appending."""
        if not path.exists():
            raise JournalError(f"{path}: no journal there; check journal.path (a new one is "
                               "created only by a station starting afresh)")
        witness = WitnessWriter(companions(path)[2])
        try:
            return cls(path, witness)
        except BaseException:
            witness.close()
            raise

    @classmethod
    def create(cls, path: Path, rules: TableRules, paytable: Paytable | None,
               session: str, config: dict[str, Any] | None = None) -> Journal:
        """Create a journal that does not exist yet (never overwrites one) and open it;
        ``config``: the print of the config it is created under (station.settings.configprint).

        It is built under a temporary name and linked into place whole, so a crash while
        creating leaves no half-made journal at ``path``."""
        if path.exists():
            raise JournalError(f"{path}: a journal already exists there; open it, or choose "
                               "another journal.path")
        _, data = new_header(rules, paytable, session, config=config)
        digest = header_hash(data)
        tmp = path.with_name(f".{path.name}.creating-{os.getpid()}")
        witness = WitnessWriter(companions(path)[2])
        try:
            _build(tmp, data, digest)
            witness.write(digest, 0, digest)
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise JournalError(f"{path}: a journal appeared there while this one was being "
                                   "created; is another station starting?") from None
            _fsync_dir(path.parent)
            return cls(path, witness)
        except OSError as exc:
            witness.close()
            raise JournalError(f"{path}: cannot create the journal ({exc.strerror or exc}); "
                               "make its directory writable, with free space") from exc
        except BaseException:
            witness.close()
            raise
        finally:
            for p in (tmp, *companions(tmp)):
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def head_hash(self) -> bytes:
        return self._hash

    def hash_at(self, seq: int) -> bytes | None:
        """``H(seq)`` as stored, or None when the journal has no record ``seq`` (an archive's
        acknowledgement is checked against it). Raises ``JournalError``."""
        if seq == self._seq:
            return self._hash
        if seq == 0:
            return self.journal_id
        if not 0 < seq < self._seq:
            return None
        with self._out_lock:
            try:
                row = self._outbox().execute("SELECT hash FROM events WHERE seq = ?",
                                             (seq,)).fetchone()
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot read record {seq} ({exc})") from exc
        return bytes(row[0]) if row is not None and isinstance(row[0], bytes) else None

    def wall_at(self, seq: int) -> float | None:
        """Record ``seq``'s wall time (seconds since the epoch), or None when there is none
        (the metrics' age of the oldest record the archive has not acknowledged). Any thread.
        Raises ``JournalError``."""
        with self._out_lock:
            try:
                row = self._outbox().execute("SELECT wall_ts FROM events WHERE seq = ?",
                                             (seq,)).fetchone()
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot read record {seq} ({exc})") from exc
        return float(row[0]) if row is not None else None

    def head(self) -> tuple[bytes, int, bytes]:
        """(journal id, last seq, its chain hash) as last committed; any thread may ask
        (the status messages name it, docs/upstream.md)."""
        return self._committed

    def append(self, event: InputEvent, wall_ts: float, mono_ts: float,
               messages: Sequence[tuple[str, bytes]] = ()) -> int:
        """Journal ``event`` and the outbox ``messages`` (topic, payload) it caused, in one
        durable transaction; returns its seq. Raises ``JournalWriteError`` (the journal is
        then exactly as before; the caller must not apply the event)."""
        with self._lock:
            seq = self._seq + 1
            if self._broken:
                raise JournalWriteError(f"{self.path}: record {seq} was not journaled: "
                                        f"{self._broken}")
            if not (math.isfinite(wall_ts) and math.isfinite(mono_ts)):
                raise JournalWriteError(f"{self.path}: record {seq} was not journaled: its "
                                        f"times ({wall_ts!r}, {mono_ts!r}) are not times")
            try:
                body = encode_event(event)
            except ValueError as exc:
                raise JournalWriteError(f"{self.path}: record {seq} was not journaled: the "
                                        f"event cannot be stored ({exc})") from exc
            rows = [(seq, topic, bytes(payload)) for topic, payload in messages]
            digest = outbox_digest([(topic, payload) for _, topic, payload in rows])
            wall, mono = float(wall_ts), float(mono_ts)
            new_hash = record_hash(self._hash, seq=seq, wall_ts=wall, mono_ts=mono,
                                   digest=digest, body=body)
            conn = self._writer()
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("INSERT INTO events (seq, wall_ts, mono_ts, body, outbox_digest, "
                             "hash) VALUES (?, ?, ?, ?, ?, ?)",
                             (seq, wall, mono, body, digest, new_hash))
                if rows:
                    conn.executemany("INSERT INTO outbox (seq, topic, payload) VALUES (?, ?, ?)",
                                     rows)
                conn.execute("UPDATE head SET seq = ?, hash = ? WHERE one = 1", (seq, new_hash))
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._after_failure(conn, seq, exc)
            self._seq, self._hash = seq, new_hash
            self._committed = (self.journal_id, seq, new_hash)
            self._write_witness()
            return seq

    def records(self) -> Iterator[Record]:
        """Every record from the first, verified against the chain as it is read (for
        recovery). Reads through a connection of its own; raises ``JournalError``."""
        try:
            conn = connect(self.path, readonly=True)
        except sqlite3.Error as exc:
            raise sqlite_failure(self.path, exc, "opening") from exc
        where = "reading record 1"
        try:
            conn.execute("BEGIN")
            for record in walk(self.path, conn, self.journal_id):
                where = f"reading the record after {record.seq}"
                yield record
        except READ_ERRORS as exc:
            raise sqlite_failure(self.path, exc, where) from exc
        finally:
            conn.close()

    # The Outbox protocol (station.journal.outbox), for the publisher thread.

    def pending(self, limit: int) -> Sequence[OutboxRow]:
        """Undelivered rows in id order, at most ``limit``. Raises ``JournalError``."""
        with self._out_lock:
            try:
                rows = self._outbox().execute(
                    "SELECT id, topic, payload FROM outbox WHERE delivered = 0 ORDER BY id "
                    "LIMIT ?", (limit,)).fetchall()
                return [OutboxRow(i, t.decode(), p) for i, t, p in rows]
            except (sqlite3.Error, UnicodeDecodeError) as exc:
                raise JournalError(f"{self.path}: cannot read the outbox ({exc})") from exc

    def mark_delivered(self, ids: Sequence[int]) -> None:
        """Mark rows delivered (the broker acknowledged them). Raises ``JournalError``."""
        with self._out_lock:
            conn = self._outbox()
            try:
                conn.execute("BEGIN IMMEDIATE")
                for start in range(0, len(ids), _MARK_CHUNK):
                    chunk = [int(i) for i in ids[start:start + _MARK_CHUNK]]
                    conn.execute(f"UPDATE outbox SET delivered = 1 WHERE delivered = 0 AND id "
                                 f"IN ({','.join('?' * len(chunk))})", chunk)
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                raise JournalError(f"{self.path}: cannot mark outbox rows delivered: "
                                   f"{_reason(exc)}; they will be sent again") from exc

    def backlog(self) -> int:
        """How many outbox rows are not delivered yet. Raises ``JournalError``."""
        with self._out_lock:
            try:
                (n,) = self._outbox().execute(
                    "SELECT count(*) FROM outbox WHERE delivered = 0").fetchone()
                return int(n)
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot read the outbox ({exc})") from exc

    def last_outbox_row(self, topic: str | None = None) -> OutboxRow | None:
        """The newest outbox row, delivered or not, or the newest on ``topic`` (recovery
        numbers messages on from them). Raises ``JournalError``."""
        where, args = ("WHERE topic = ? ", (topic,)) if topic is not None else ("", ())
        with self._out_lock:
            try:
                row = self._outbox().execute(
                    f"SELECT id, topic, payload FROM outbox {where}ORDER BY id DESC LIMIT 1",
                    args).fetchone()
            except (sqlite3.Error, UnicodeDecodeError) as exc:
                raise JournalError(f"{self.path}: cannot read the outbox ({exc})") from exc
        return None if row is None else OutboxRow(row[0], row[1].decode(), row[2])

    def settled_status(self) -> OutboxRow | None:
        """The newest status row delivered with every row before it delivered too, or None:
        what a restarted publisher sends first as the retained status (issue 33), which
        keeps the topic's order, since every row it has not delivered comes after it.
        Raises ``JournalError``."""
        with self._out_lock:
            try:
                row = self._outbox().execute(
                    "SELECT id, topic, payload FROM outbox WHERE topic = 'status' AND "
                    "delivered = 1 AND id < (SELECT coalesce(min(id), 9223372036854775807) "
                    "FROM outbox WHERE delivered = 0) ORDER BY id DESC LIMIT 1").fetchone()
            except (sqlite3.Error, UnicodeDecodeError) as exc:
                raise JournalError(f"{self.path}: cannot read the outbox ({exc})") from exc
        return None if row is None else OutboxRow(row[0], row[1].decode(), row[2])

    def close(self) -> None:
        """Close the connections (SQLite checkpoints the WAL) and release the lock. Waits for
        an append or outbox call in progress on another thread: closing a connection under a
        running statement would crash the interpreter."""
        for attr, lock in (("_out", "_out_lock"), ("_conn", "_lock")):
            with getattr(self, lock):
                conn = getattr(self, attr, None)
                if conn is not None:
                    with contextlib.suppress(sqlite3.Error):
                        conn.close()
                    setattr(self, attr, None)
        if self._witness is not None:
            self._witness.close()
            self._witness = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _writer(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalWriteError(f"{self.path}: the journal is closed")
        return self._conn

    def _outbox(self) -> sqlite3.Connection:
        if self._out is None:
            if self._conn is None:
                raise JournalError(f"{self.path}: the journal is closed")
            try:
                self._out = connect(self.path, readonly=False)
                # A delivery mark lost in a power cut only means the row is sent again, with
                # the same idempotency key: no fsync per mark, so appends keep the disk.
                self._out.execute("PRAGMA synchronous = NORMAL")
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot open the outbox ({exc})") from exc
        return self._out

    def _after_failure(self, conn: sqlite3.Connection, seq: int, exc: sqlite3.Error) -> None:
        """Roll back, make sure the database still ends where we think, and raise."""
        with contextlib.suppress(sqlite3.Error):
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        try:
            head = conn.execute("SELECT seq, hash FROM head").fetchone()
        except sqlite3.Error:
            head = None
        if head != (self._seq, self._hash):
            # Cannot tell whether the record landed: only a restart (which verifies) can.
            self._broken = ("after a failed write the journal's end is unknown; restart the "
                            "station, which verifies the journal")
            raise JournalWriteError(f"{self.path}: record {seq} may not be journaled: "
                                    f"{_reason(exc)}; {self._broken}") from exc
        raise JournalWriteError(f"{self.path}: record {seq} was not journaled: {_reason(exc)}; "
                                "the journal is unchanged: fix the cause, then resume") from exc

    def _write_witness(self) -> None:
        if self._witness is None:
            return
        try:
            self._witness.write(self.journal_id, self._seq, self._hash)
        except OSError as exc:
            if not self._witness_failed:  # once: it fails the same way every time
                log.warning("%s: cannot update the head file (%s); a lost tail of this journal "
                            "could go unnoticed", self._witness.path, exc)
                self._witness_failed = True


def _build(tmp: Path, header: bytes, digest: bytes) -> None:
    for p in (tmp, *companions(tmp)):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous = FULL")
        create_schema(conn, header, digest)
    except sqlite3.Error as exc:
        raise OSError(f"SQLite: {exc}") from exc
    finally:
        conn.close()  # the last connection: SQLite checkpoints and removes the WAL
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
