"""Journals moved aside: finding them beside the journal in use, and reading what retention
and the archive's acknowledgements need, read-only (docs/journal.md "Retention").

A journal is moved aside by ``station.live.assembly`` as ``<stem>-<YYYYMMDDTHHMMSS>[-N]<suffix>``
beside ``journal.path`` (the stamp is its creation time). A file is taken for one only when
its name has that form, it is a journal, its header's creation time gives that stamp, and it
is of this station's table. Nothing else in the folder is ever touched.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import orjson

from station.journal.errors import JournalError
from station.journal.files import check_files, companions
from station.journal.retention import AckSeen, AsideJournal
from station.journal.schema import connect
from station.journal.store import Journal
from station.journal.verify import READ_ERRORS, read_header, sqlite_failure, verify_journal
from station.journal.witness import in_use
from station.table.acks import parse_ack
from station.table.actions import ARCHIVED_ACTION
from station.table.modes import upstream_id
from station.wire.messages import EVENTS_TOPIC, SHOE_STARTED

_STAMP = r"[0-9]{8}T[0-9]{6}"
_ARCHIVED = b'"action":"' + ARCHIVED_ACTION.encode() + b'"'  # bodies are canonical JSON
_SHOE_STARTED = b'"kind":"' + SHOE_STARTED.encode() + b'"'  # so are payloads
_ASKED_KEPT = 64  # records' hashes remembered per journal moved aside


def stamp_of(created: str) -> str:
    """The stamp a journal moved aside is named by (station.live.assembly)."""
    return "".join(ch for ch in created if ch.isalnum())[:15] or "old"


def aside_stamp(journal_path: Path, name: str) -> str | None:
    """The stamp in ``name`` if it is the name of a journal moved aside from
    ``journal_path``; None for any other name (companions included)."""
    stem, suffix = re.escape(journal_path.stem), re.escape(journal_path.suffix)
    m = re.fullmatch(f"{stem}-({_STAMP})(?:-[1-9][0-9]{{0,5}})?{suffix}", name)
    return m.group(1) if m else None


def moved_aside(journal_path: Path) -> list[Path]:
    """The regular files (not links) beside ``journal_path`` named as journals moved aside
    from it, by name. Their content is not read here."""
    folder = journal_path.parent
    try:
        names = sorted(p.name for p in folder.iterdir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise JournalError(f"{folder}: cannot list the folder of the journal "
                           f"({exc.strerror}); make it readable by the station's user") from exc
    found = []
    for name in names:
        if aside_stamp(journal_path, name) is None:
            continue
        path = folder / name
        with contextlib.suppress(OSError):
            if stat.S_ISREG(path.lstat().st_mode):
                found.append(path)
    return found


@dataclass(frozen=True, slots=True)
class Identity:
    journal_id: str
    table: str
    created: str
    session: str


def is_frozen(path: Path) -> bool:
    """Whether nobody writes ``path`` and its WAL holds nothing, so it can be read without
    writing anything beside it (``schema.connect``'s ``frozen``): a journal moved aside after
    a clean close. A full disk cannot then keep retention from reading it."""
    wal, head = companions(path)[0], companions(path)[2]
    try:
        empty_wal = wal.stat().st_size == 0
    except FileNotFoundError:
        empty_wal = True
    except OSError:
        return False
    return empty_wal and not in_use(head)


def read_identity(path: Path) -> Identity:
    """The journal's id and header facts, read-only. Raises ``JournalError``."""
    check_files(path)
    try:
        conn = connect(path, readonly=True, frozen=is_frozen(path))
    except sqlite3.Error as exc:
        raise sqlite_failure(path, exc, "opening") from exc
    try:
        header, digest = read_header(path, conn)
    except READ_ERRORS as exc:
        raise sqlite_failure(path, exc, "reading the header") from exc
    finally:
        conn.close()
    return Identity(digest.hex(), header.rules.table, header.created, header.session)


def not_ours(journal_path: Path, path: Path, ident: Identity, table: str) -> str:
    """Why ``path`` is not a journal moved aside by this station, or ""."""
    if ident.table != table:
        return f"a journal of table {ident.table!r}, not {table!r}"
    if aside_stamp(journal_path, path.name) != stamp_of(ident.created):
        return f"its name does not carry its creation time ({ident.created})"
    return ""


def _created_ts(created: str) -> float:
    try:
        return datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):
        return 0.0


@dataclass(frozen=True, slots=True)
class Facts:
    """What retention needs of one journal: itself (as an ``AsideJournal``) and the
    acknowledgements journaled in it (of itself and of older journals)."""

    journal: AsideJournal
    acks: tuple[AckSeen, ...]
    identity: Identity


def read_facts(path: Path, *, verify: bool) -> Facts:
    """Read (and with ``verify``, verify whole first) one journal, read-only. Raises
    ``JournalError`` (``JournalCorrupt`` when it fails verification)."""
    frozen = is_frozen(path)
    if verify:
        report = verify_journal(path, live=not frozen, frozen=frozen)
        ident = Identity(report.journal_id.hex(), report.header.rules.table,
                         report.header.created, report.header.session)
    else:
        ident = read_identity(path)
    try:
        conn = connect(path, readonly=True, frozen=frozen)
    except sqlite3.Error as exc:
        raise sqlite_failure(path, exc, "opening") from exc
    try:
        conn.execute("BEGIN")  # one snapshot: a station may be appending meanwhile
        row = conn.execute("SELECT seq, hash FROM head").fetchone()
        if row is None or not isinstance(row[0], int) or not isinstance(row[1], bytes):
            raise JournalError(f"{path}: no head row; run `station journal verify` on it")
        last_seq, head = row[0], row[1].hex()
        last = conn.execute("SELECT wall_ts FROM events WHERE seq = ?", (last_seq,)).fetchone()
        ended = (float(last[0]) if last is not None and isinstance(last[0], float)
                 else _created_ts(ident.created))
        shoes = 0
        for (payload,) in conn.execute(
                "SELECT payload FROM outbox WHERE topic = ? AND instr(payload, ?) > 0",
                (EVENTS_TOPIC, _SHOE_STARTED)):
            with contextlib.suppress(orjson.JSONDecodeError, TypeError):
                msg = orjson.loads(payload)
                shoes += isinstance(msg, dict) and msg.get("kind") == SHOE_STARTED
        acks = tuple(_acks(conn))
    except READ_ERRORS as exc:
        raise sqlite_failure(path, exc, "reading its records") from exc
    finally:
        conn.close()
    return Facts(AsideJournal(path.name, ident.journal_id, last_seq,
                              ident.journal_id if last_seq == 0 else head, ended, shoes,
                              not frozen and in_use(companions(path)[2])), acks, ident)


def _acks(conn: sqlite3.Connection) -> list[AckSeen]:
    out = []
    for (body,) in conn.execute("SELECT body FROM events WHERE instr(body, ?) > 0 ORDER BY seq",
                                (_ARCHIVED,)):
        try:
            event = orjson.loads(body)
        except (orjson.JSONDecodeError, TypeError):
            continue
        if not (isinstance(event, dict) and event.get("e") == "cmd"
                and event.get("action") == ARCHIVED_ACTION):
            continue
        actor, note, ts = event.get("actor"), event.get("note"), event.get("t")
        if not isinstance(actor, str) or upstream_id(actor) is None:
            continue
        ack = parse_ack(note if isinstance(note, str) else None)
        if ack is None or ack.refusal is not None or not isinstance(ts, int | float):
            continue  # only what the station took: it held that record then
        out.append(AckSeen(ack.journal, ack.seq, ack.head, actor, float(ts)))
    return out


class Holdings:
    """Which records this station holds, for the archive's ``archived``: the journal in use
    and the journals moved aside beside it (of its table). Journals moved aside never change,
    so what is read of them is kept: their ids by file, and the hashes asked for. The loop
    thread calls ``refusal``."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._table = journal.header.rules.table
        self._files: dict[Path, tuple[tuple[int, int, int], str | None]] = {}
        self._asked: dict[str, dict[int, bytes | None]] = {}

    def refusal(self, journal_id: str, seq: int, head: str) -> str | None:
        """None when this station holds record ``seq`` of ``journal_id`` with hash ``head``;
        otherwise what differs, in words for the archive."""
        current = self._journal
        if journal_id == current.journal_id.hex():
            last = current.last_seq
            if seq > last:
                return (f"journal {journal_id} (in use) has records up to seq {last}, not "
                        f"{seq}")
            try:
                found = current.hash_at(seq)
            except JournalError as exc:
                return f"record {seq} of journal {journal_id} cannot be read ({exc})"
            return _differs(journal_id, seq, head, found)
        path = self._find(journal_id)
        if path is None:
            return (f"journal {journal_id} is not on this station: neither the journal in use "
                    f"({current.journal_id.hex()}) nor one moved aside beside it")
        try:
            found = self._hash(path, journal_id, seq)
        except JournalError as exc:
            return f"journal {journal_id} moved aside as {path.name} cannot be read ({exc})"
        if found is None:
            return f"journal {journal_id} moved aside as {path.name} has no record {seq}"
        return _differs(journal_id, seq, head, found)

    def locate(self, journal_id: str, seq: int) -> tuple[Path | None, str | None]:
        """For the archive's ``resend``: the file holding record ``seq`` of ``journal_id``
        (the journal in use or one moved aside), or None and why not, in words."""
        current = self._journal
        if journal_id == current.journal_id.hex():
            last = current.last_seq
            if seq > last:
                return None, (f"journal {journal_id} (in use) has records up to seq {last}, "
                              f"not {seq}")
            return current.path, None
        path = self._find(journal_id)
        if path is None:
            return None, (f"journal {journal_id} is no longer on this station (neither the "
                          "journal in use nor one moved aside beside it): its records after "
                          "what the archive holds are lost to it")
        try:
            found = self._hash(path, journal_id, seq)
        except JournalError as exc:
            return None, f"journal {journal_id} moved aside as {path.name} cannot be read ({exc})"
        if found is None:
            return None, f"journal {journal_id} moved aside as {path.name} has no record {seq}"
        return path, None

    def _find(self, journal_id: str) -> Path | None:
        for path, (_, known) in self._files.items():
            if known == journal_id and path.exists():
                return path
        try:
            paths = moved_aside(self._journal.path)
        except JournalError:
            return None
        for path in paths:
            try:
                st = path.stat()
            except OSError:
                continue
            key = (st.st_ino, st.st_size, st.st_mtime_ns)
            seen = self._files.get(path)
            if seen is None or seen[0] != key:
                try:
                    ident = read_identity(path)
                    ours = not not_ours(self._journal.path, path, ident, self._table)
                    self._files[path] = (key, ident.journal_id if ours else None)
                except JournalError:
                    self._files[path] = (key, None)
            if self._files[path][1] == journal_id:
                return path
        return None

    def _hash(self, path: Path, journal_id: str, seq: int) -> bytes | None:
        asked = self._asked.setdefault(journal_id, {})
        if seq in asked:
            return asked[seq]
        try:
            conn = connect(path, readonly=True, frozen=is_frozen(path))
        except sqlite3.Error as exc:
            raise sqlite_failure(path, exc, "opening") from exc
        try:
            if seq == 0:
                found: bytes | None = bytes.fromhex(journal_id)
            else:
                row = conn.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
                found = bytes(row[0]) if row is not None and isinstance(row[0], bytes) else None
        except READ_ERRORS as exc:
            raise sqlite_failure(path, exc, f"reading record {seq}") from exc
        finally:
            conn.close()
        if len(asked) >= _ASKED_KEPT:
            del asked[next(iter(asked))]
        asked[seq] = found
        return found


def _differs(journal_id: str, seq: int, head: str, found: bytes | None) -> str | None:
    if found is None:
        return f"journal {journal_id} has no record {seq}"
    if found.hex() != head:
        return f"record {seq} of journal {journal_id} has head {found.hex()}, not {head}"
    return None
