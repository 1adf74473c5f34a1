"""``station pit verify -c PIT.yaml``: the pit's journal checked against its own chain
(station.services.pit.journal): every entry hashes from the one before it, from the journal's
header; the head file names the chain's last entry (a lost or cut tail is found); and every
row of the chained tables is what the entries say it is, none added, none missing, none
edited. Read-only, also while the pit runs.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import orjson

from station.journal.witness import read_witness
from station.services.pit.journal import CHAINED, HEADER_MAGIC, body_digest, chain_hash, head_path

MAX_SAID: Final = 20  # problems named one by one; the others counted


def verify_pit_journal(path: Path) -> tuple[list[str], str]:
    """What is wrong with the pit journal at ``path`` (empty: nothing) and a summary line.
    Raises ``OSError`` or ``sqlite3.Error`` for a file that cannot be read as a pit journal."""
    if not path.is_file():
        raise OSError(f"{path}: no such file")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return _verify(db, path)
    finally:
        db.close()


def _verify(db: sqlite3.Connection, path: Path) -> tuple[list[str], str]:
    row = db.execute("SELECT value FROM meta WHERE key = 'header'").fetchone()
    if row is None:
        return [f"{path}: no header: not a chained pit journal (an older pit's, never opened "
                "by this one)"], "not verified"
    header = bytes(row[0])
    try:
        meta = orjson.loads(header)
        before: dict[str, int] = {str(k): int(v) for k, v in meta["before"].items()}
        if meta["magic"] != HEADER_MAGIC:
            raise ValueError(meta["magic"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return [f"{path}: its header is not a pit journal's"], "not verified"
    problems: list[str] = []
    prev = journal_id = hashlib.sha256(header).digest()
    expected: dict[str, dict[Any, dict[str, Any]]] = {t: {} for t in CHAINED}
    last = 0
    hashes: dict[int, bytes] = {}
    for n, stored, digest in db.execute("SELECT n, entry, hash FROM chain ORDER BY n"):
        # An entry is bytes as written; one edited in SQL may come back as text.
        entry = stored.encode() if isinstance(stored, str) else bytes(stored)
        if n != last + 1:
            problems.append(f"chain: entry {last + 1} is missing (the next is {n})")
            break
        if chain_hash(prev, entry) != bytes(digest):
            problems.append(f"chain: entry {n} does not hash, from entry {n - 1}'s hash, to "
                            "the hash it carries (edited)")
            break
        prev, last = bytes(digest), n
        hashes[n] = prev
        try:
            _replay(expected, orjson.loads(entry))
        except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError):
            problems.append(f"chain: entry {n} is not a pit journal's entry")
            break
    problems += _head(path, journal_id, last, hashes)
    counted = 0
    for table, key in CHAINED.items():
        for problem in _rows(db, table, key, before.get(table, 0), expected[table]):
            problems.append(problem)
        counted += len(expected[table])
    unchained = sum(before.values())
    summary = (f"{path}: {last} chain entries, {counted} rows as the chain says"
               + (f"; {unchained} rows from before the chain, not verified" if unchained
                  else ""))
    return problems, summary


def _replay(expected: dict[str, dict[Any, dict[str, Any]]], entry: dict[str, Any]) -> None:
    table = expected.setdefault(str(entry.pop("t")), {})
    if "update" in entry:
        row = table.setdefault(entry.pop("update"), {})
        row.update(entry)
    else:
        table[entry["id"]] = entry


def _head(path: Path, journal_id: bytes, last: int, hashes: dict[int, bytes]) -> list[str]:
    where = head_path(path)
    try:
        witness = read_witness(where)
    except ValueError as exc:
        return [f"{where}: damaged ({exc})"]
    if witness is None:
        return [f"{where}: missing: the chain's end cannot be checked"]
    if witness.journal_id != journal_id:
        return [f"{where}: names another journal"]
    if witness.seq > last:
        return [f"{where}: names entry {witness.seq}, the chain ends at {last}: entries were "
                "lost or cut off"]
    if witness.seq and hashes.get(witness.seq) != witness.hash:
        return [f"{where}: entry {witness.seq}'s hash differs from the chain's (rewritten)"]
    return []


def _rows(db: sqlite3.Connection, table: str, key: str, before: int,
          expected: dict[Any, dict[str, Any]]) -> Iterator[str]:
    cur = db.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid")
    names = [d[0] for d in cur.description][1:]
    left = dict(expected)
    for rowid, *values in cur:
        row = dict(zip(names, values, strict=True))
        if rowid <= before:
            continue
        ident = row[key]
        want = left.pop(ident, None)
        if want is None:
            yield f"{table} row {ident}: not in the chain (added by hand)"
            continue
        if table == "seen":
            row["body"] = body_digest(row["body"])
        for column, value in want.items():
            if row.get(column) != value:
                yield (f"{table} row {ident}: {column} is {_short(row.get(column))}, the "
                       f"chain says {_short(value)} (edited)")
    for ident in left:
        yield f"{table} row {ident}: in the chain but not in the table (deleted)"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
