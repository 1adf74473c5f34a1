"""The head file (``<journal>-head``): the last record the station saw committed.

Inside the database a lost tail leaves nothing to notice: a WAL cut short loses its last
transactions, head row included, and what remains is a valid, shorter chain. So after each
commit the station also writes ``seq`` and ``hash`` here, in place, without an fsync (the
database commit was already made durable). After a power cut this file may lag behind the
database, never run ahead of it; a journal whose last record is older than its head file has
lost records. The writer also holds an exclusive ``flock`` on it: one station per journal.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from station.journal.errors import JournalError

MAGIC = "dealer-station-journal-head v1"
_LINE = len(MAGIC) + 1 + 64 + 1 + 20 + 1 + 64 + 1 + 16 + 1


@dataclass(frozen=True, slots=True)
class Witness:
    journal_id: bytes  # the SHA-256 of the journal's header: which journal this file is for
    seq: int
    hash: bytes


def _line(journal_id: bytes, seq: int, digest: bytes) -> bytes:
    text = f"{MAGIC} {journal_id.hex()} {seq:020d} {digest.hex()}"
    check = hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"{text} {check}\n".encode()


def read_witness(path: Path) -> Witness | None:
    """The head file's content; ``None`` if it is missing or empty. Raises ``ValueError``
    if it is damaged (a torn write in a power cut, or an edit)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(f"cannot read it ({exc.strerror})") from exc
    if not data:
        return None
    parts = data.decode("ascii", "replace").split()
    if len(data) != _LINE or len(parts) != 6 or " ".join(parts[:2]) != MAGIC:
        raise ValueError("it is not a head file line")
    try:
        journal_id, seq, digest = bytes.fromhex(parts[2]), int(parts[3]), bytes.fromhex(parts[4])
    except ValueError as exc:
        raise ValueError(f"it is garbled ({exc})") from exc
    if _line(journal_id, seq, digest) != data:
        raise ValueError("its check digits do not match its content")
    return Witness(journal_id, seq, digest)


def in_use(path: Path) -> bool:
    """Whether a station holds this head file's lock (is appending to the journal now)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


class WitnessWriter:
    """Holds the head file open and locked while a station appends to the journal."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._fd: int | None = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise JournalError(f"{path}: cannot open the journal's head file "
                               f"({exc.strerror}); make its directory writable") from exc
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            self.close()
            raise JournalError(f"{path}: another station is using this journal (its head file "
                               "is locked); stop it first, or give this one its own "
                               "journal.path") from exc
        self._sized = False

    def write(self, journal_id: bytes, seq: int, digest: bytes) -> None:
        """Record the new head; raises ``OSError``."""
        if self._fd is None:
            raise OSError("head file closed")
        line = _line(journal_id, seq, digest)
        if not self._sized:
            os.ftruncate(self._fd, len(line))
            self._sized = True
        os.pwrite(self._fd, line, 0)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # also releases the lock
            self._fd = None
