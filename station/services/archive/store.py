"""One archived journal: the station's journal rebuilt record by record, in the journal's own
format (station/journal/schema.py), so ``station journal verify`` and ``station replay`` take
it as they take the station's.

Only verified records reach ``append`` (the receiver checks the chain first); a batch is one
transaction with ``synchronous=FULL``, so when ``commit`` returns the records are on disk.
The outbox rows are stored delivered (an archive sends nothing). The head file is written
after each commit, as the station writes its own, and locked: one archive per folder.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from station.journal.errors import JournalError
from station.journal.files import companions
from station.journal.schema import connect, create_schema
from station.journal.verify import verify_journal
from station.journal.witness import WitnessWriter
from station.wire.chain import outbox_digest

SUFFIX = ".sqlite3"


def file_name(created: str, journal_id: bytes) -> str:
    """``<created, to the second>Z-<journal id, 16 hex>.sqlite3``: in time order, and the id
    finds it again."""
    stamp = "".join(ch for ch in created if ch.isalnum())[:15] or "unknown"
    return f"{stamp}Z-{journal_id.hex()[:16]}{SUFFIX}"


def id_prefix(path: Path) -> str | None:
    """The journal id's first 16 hex digits, from an archived journal's file name."""
    name = path.name
    if not name.endswith(SUFFIX) or "-" not in name:
        return None
    part = name[: -len(SUFFIX)].rsplit("-", 1)[1]
    return part if len(part) == 16 else None


class ArchivedJournal:
    """An archived journal open for appending. Raises ``JournalError``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._witness: WitnessWriter | None = WitnessWriter(companions(path)[2])
        try:
            report = verify_journal(path, live=False)
            self.journal_id = report.journal_id
            self.last_seq, self.head = report.last_seq, report.head_hash
            self._conn: sqlite3.Connection | None = connect(path, readonly=False)
            self._conn.execute("PRAGMA synchronous = FULL")
        except BaseException:
            self.close()
            raise
        self._batch: list[tuple[int, float, float, bytes, list[tuple[str, bytes]], bytes]] = []
        self.synced_seq = self.last_seq  # committed and on disk

    @classmethod
    def create(cls, path: Path, header: bytes, journal_id: bytes) -> ArchivedJournal:
        """A new archived journal holding only ``header`` (never overwrites a file)."""
        if path.exists():
            raise JournalError(f"{path}: already exists; the archive does not overwrite a "
                               "journal")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.creating-{os.getpid()}")
        for p in (tmp, *companions(tmp)):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute("PRAGMA synchronous = FULL")
                create_schema(conn, header, journal_id)
            finally:
                conn.close()
            _fsync(tmp)
            os.link(tmp, path)
            _fsync(path.parent, directory=True)
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"{path}: cannot create the archived journal ({exc}); make "
                               "archive.dir writable, with free space") from exc
        finally:
            for p in (tmp, *companions(tmp)):
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()
        return cls(path)

    def stored_hashes(self, seq: int) -> tuple[bytes, bytes] | None:
        """``(H(seq-1), H(seq))`` as held (written, or queued for the next commit), for a
        record the archive already has; None for one it has not."""
        if seq < 1 or seq > self.last_seq:
            return None
        return self._hash_of(seq - 1), self._hash_of(seq)

    def _hash_of(self, seq: int) -> bytes:
        if seq == 0:
            return self.journal_id
        if seq > self.synced_seq:
            return self._batch[seq - self.synced_seq - 1][5]
        row = self._writer().execute("SELECT hash FROM events WHERE seq = ?",
                                     (seq,)).fetchone()
        return bytes(row[0])

    def add(self, seq: int, *, wall: float, mono: float, body: bytes,
            messages: list[tuple[str, bytes]], digest: bytes) -> None:
        """Queue a verified record (``seq`` = last_seq + 1) for the next ``commit``."""
        assert seq == self.last_seq + 1
        self._batch.append((seq, wall, mono, body, messages, digest))
        self.last_seq, self.head = seq, digest

    def commit(self) -> int:
        """Write the queued records in one durable transaction; returns how many."""
        if not self._batch:
            return 0
        conn = self._writer()
        batch, self._batch = self._batch, []
        try:
            conn.execute("BEGIN IMMEDIATE")
            for seq, wall, mono, body, messages, digest in batch:
                conn.execute("INSERT INTO events (seq, wall_ts, mono_ts, body, outbox_digest, "
                             "hash) VALUES (?, ?, ?, ?, ?, ?)",
                             (seq, wall, mono, body, outbox_digest(messages), digest))
                if messages:
                    conn.executemany("INSERT INTO outbox (seq, topic, payload, delivered) "
                                     "VALUES (?, ?, ?, 1)",
                                     [(seq, t, p) for t, p in messages])
            last = batch[-1]
            conn.execute("UPDATE head SET seq = ?, hash = ? WHERE one = 1", (last[0], last[5]))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            self.last_seq = self.synced_seq
            self.head = self._hash_of(self.synced_seq)
            raise JournalError(f"{self.path}: cannot write records {batch[0][0]} to "
                               f"{batch[-1][0]} ({exc}); they are held and written when it can"
                               ) from exc
        self.synced_seq = self.last_seq
        if self._witness is not None:
            with contextlib.suppress(OSError):
                self._witness.write(self.journal_id, self.last_seq, self.head)
        return len(batch)

    def drop_batch(self) -> None:
        """Forget the queued records (a commit that will not happen)."""
        if self._batch:
            self._batch = []
            self.last_seq = self.synced_seq
            self.head = self._hash_of(self.synced_seq)

    def close(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
            self._conn = None
        if self._witness is not None:
            self._witness.close()
            self._witness = None

    def _writer(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalError(f"{self.path}: closed")
        return self._conn


def _fsync(path: Path, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
