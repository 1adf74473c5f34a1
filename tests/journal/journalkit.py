"""Helpers for the journal tests: real journals in tmp_path, and their raw pages."""

from __future__ import annotations

import shutil
import sqlite3
import struct
from pathlib import Path

from drivers.events import CardRead, Command, InputEvent
from station.journal import Journal
from station.journal.files import companions
from station.table.tablerules import TableRules

RULES = TableRules()
T0 = 1_767_225_600.0  # 2026-01-01


def event(i: int) -> InputEvent:
    """Event ``i`` of a test session; cards all encode to the same length (same-size cells)."""
    if i == 0:
        return Command("new_shoe", "dealer:test", T0)
    return CardRead("AS", "scanner", T0 + i)


def message(i: int) -> list[tuple[str, bytes]]:
    return [("events", b'{"kind":"card","n":%04d}' % i)]


def append_events(journal: Journal, start: int, count: int) -> None:
    for i in range(start, start + count):
        journal.append(event(i), T0 + i + 0.25, 1000.0 + i, message(i))


def make_journal(path: Path, count: int = 40) -> Path:
    """A closed journal of ``count`` records (SQLite has checkpointed: no WAL left)."""
    with Journal.create(path, RULES, None, "test") as journal:
        append_events(journal, 0, count)
    return path


def snapshot_with_wal(path: Path, folder: Path, count: int = 40, more: int = 5) -> Path:
    """A copy of a journal taken while a station had it open, as after ``kill -9``: the last
    ``more`` records are only in the WAL. Returns the copy's path."""
    make_journal(path, count)
    folder.mkdir(exist_ok=True)
    copy = folder / path.name
    with Journal.open(path) as journal:
        append_events(journal, count, more)
        shutil.copyfile(path, copy)
        for src, dst in zip(companions(path), companions(copy), strict=True):
            if src.name.endswith(("-wal", "-head")):
                shutil.copyfile(src, dst)
    return copy


def page_size(path: Path) -> int:
    (size,) = struct.unpack_from(">H", path.read_bytes(), 16)
    return 65536 if size == 1 else size


def pages_of(path: Path, name: str) -> list[int]:
    """The page numbers of table ``name`` (through SQLite's dbstat; the file has no WAL)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [p for (p,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno", (name,))]
    finally:
        conn.close()


def unallocated(data: bytes, pageno: int, size: int) -> set[int]:
    """File offsets inside b-tree page ``pageno`` that hold no data: the gap between the cell
    pointers and the cell content, and freeblocks past their 4-byte headers. SQLite reads no
    byte there, so a flipped one changes nothing (and cannot be detected)."""
    base = (pageno - 1) * size
    hdr = base + (100 if pageno == 1 else 0)
    kind = data[hdr]
    header_len = 12 if kind in (2, 5) else 8
    (first_free, cells, content) = struct.unpack_from(">HHH", data, hdr + 1)
    content = content or 65536
    free = set(range(hdr + header_len + 2 * cells, base + content))
    block = first_free
    while block:
        nxt, length = struct.unpack_from(">HH", data, base + block)
        free |= set(range(base + block + 4, base + block + length))
        block = nxt
    return free
