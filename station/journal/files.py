"""Checks on the raw files, before SQLite reads them.

SQLite reads past the end of a cut-short file as zeros and may not notice a missing last
page; its header records how many pages the database has, so comparing that with the file's
size finds a cut anywhere in the last page, or a whole page gone.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

from station.journal.errors import JournalCorrupt, JournalError
from station.journal.schema import APPLICATION_ID, USER_VERSION

SQLITE_MAGIC = b"SQLite format 3\x00"
HEADER_SIZE = 100
WAL_HEADER = 32
WAL_FRAME_HEADER = 24
WHAT_TO_DO = ("keep the files as they are for investigation (do not repair or delete them) "
              "and start the station on a new journal")


@dataclass(frozen=True, slots=True)
class FileFacts:
    page_size: int
    pages: int  # from the header (0 if SQLite's header count is not valid)
    size: int
    wal_note: str  # "" or what looks wrong in the WAL file, to add to a later finding


def companions(path: Path) -> tuple[Path, ...]:
    """The files that belong with a journal: SQLite's WAL and shared memory, the head, and
    the mirror's progress mark (station.upstream.mirror)."""
    return tuple(path.with_name(path.name + s) for s in ("-wal", "-shm", "-head", "-mirror"))


def check_files(path: Path) -> FileFacts:
    """Read the database header; raise ``JournalError`` for a file that is not a journal and
    ``JournalCorrupt`` for one that is cut short."""
    try:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(HEADER_SIZE)
    except IsADirectoryError:
        raise JournalError(f"{path}: is a directory, not a journal") from None
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal ({exc.strerror})") from exc
    if not head.startswith(SQLITE_MAGIC):
        raise JournalError(f"{path}: not a journal (not an SQLite database); check the path")
    if len(head) < HEADER_SIZE:
        raise JournalCorrupt(f"{path}: cut short inside the database header ({size} bytes); "
                             f"{WHAT_TO_DO}")
    (raw_page_size,) = struct.unpack_from(">H", head, 16)
    (change_counter, pages) = struct.unpack_from(">II", head, 24)
    (user_version,) = struct.unpack_from(">i", head, 60)
    (app_id,) = struct.unpack_from(">I", head, 68)
    (valid_for,) = struct.unpack_from(">I", head, 92)
    if app_id != APPLICATION_ID:
        raise JournalError(f"{path}: an SQLite database, but not a station journal "
                           f"(application id {app_id:#x}); check the path")
    if user_version != USER_VERSION:
        raise JournalError(f"{path}: journal format {user_version}; this station reads "
                           f"format {USER_VERSION}: use a station that matches")
    page_size = 65536 if raw_page_size == 1 else raw_page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise JournalCorrupt(f"{path}: page 1: the database header is damaged (page size "
                             f"{raw_page_size}); {WHAT_TO_DO}")
    if change_counter != valid_for:
        pages = 0  # SQLite itself would not trust the count then; neither do we
    if size % page_size:
        raise JournalCorrupt(
            f"{path}: cut short inside page {size // page_size + 1}: {size} bytes is not a "
            f"whole number of {page_size}-byte pages; {WHAT_TO_DO}")
    if size < pages * page_size and not _wal_holds(
            path, page_size, range(size // page_size + 1, pages + 1)):
        raise JournalCorrupt(
            f"{path}: cut short: pages {size // page_size + 1} to {pages} are missing (the "
            f"file has {size // page_size} of the {pages} pages its header counts); "
            f"{WHAT_TO_DO}")
    return FileFacts(page_size, pages, size, _wal_note(path, page_size))


def _wal_holds(path: Path, page_size: int, wanted: range) -> bool:
    """Whether the WAL has a committed frame, of its current generation (salts), for every
    page in ``wanted``. A checkpoint writes page 1 (with the new page count) before the pages that
    extend the file: stopped there (a kill, a power cut) the file looks cut short while the
    WAL still holds those pages, and SQLite copies them again when it next opens the file.
    A page that neither holds is missing; a frame SQLite finds invalid is not read, and the
    page then reads as zeros, which the integrity check reports."""
    wal = companions(path)[0]
    try:
        with wal.open("rb") as f:
            head = f.read(WAL_HEADER)
            if len(head) < WAL_HEADER or struct.unpack_from(">I", head, 8)[0] != page_size:
                return False
            salts = head[16:24]
            found: set[int] = set()
            pending: set[int] = set()
            while True:
                frame = f.read(WAL_FRAME_HEADER)
                if len(frame) < WAL_FRAME_HEADER or frame[8:16] != salts:
                    break
                pending.add(struct.unpack_from(">I", frame, 0)[0])
                if struct.unpack_from(">I", frame, 4)[0]:  # a commit frame: all before count
                    found |= pending
                    pending = set()
                f.seek(page_size, os.SEEK_CUR)
    except OSError:
        return False
    return all(page in found for page in wanted)


def _wal_note(path: Path, page_size: int) -> str:
    wal = companions(path)[0]
    try:
        size = wal.stat().st_size
    except OSError:
        return ""
    if size == 0:
        return ""
    frames, rest = divmod(size - WAL_HEADER, WAL_FRAME_HEADER + page_size)
    if size < WAL_HEADER or rest:
        return (f"the WAL file {wal.name} ends inside frame {frames + 1} "
                "(cut short, or a crash while writing)")
    return ""
