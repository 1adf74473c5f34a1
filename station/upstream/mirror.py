"""The journal's live mirror: every committed record, as a signed ``journal`` message, in
order, for an archive off the machine (``station archive``) to rebuild the journal from.

The mirror is derived from COMMITTED records (the events table and each record's outbox rows,
read through a read-only connection of its own) and sent after them: a record's chain hash
covers its outbox rows, so the mirror message of record N cannot be one of them. It is not
part of the chain and changes no byte of the other topics.

Progress is a mark file beside the journal (``<journal>-mirror``, one of the journal's
companions, so it moves aside with it): the next seq whose message the broker has not yet
acknowledged, ``0`` while the header (seq 0) has not gone. It is rewritten in place without
an fsync: after a power cut it may be behind, never ahead, and what it lacks is sent again
(the archive skips a record it already has when it is identical). A journal moved aside
whose mark is short of its last record is mirrored to its end first, then the next one.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from station import __version__
from station.journal.errors import JournalError
from station.journal.files import companions
from station.journal.schema import connect
from station.wire.messages import JOURNAL, JOURNAL_TOPIC, STATION_VERSION, iso_ts
from station.wire.sealing import Sealer
from station.wire.signing import Signer

log = logging.getLogger(__name__)

TOPIC: Final = JOURNAL_TOPIC  # <prefix>/<table>/journal
MAGIC: Final = "dealer-station-journal-mirror v1"
PART_BYTES: Final = 128 * 1024  # a message above this goes in parts (brokers' usual limits)
PART_OVERHEAD: Final = 600  # a part's envelope (about 450 bytes), signature and topic
RESEND_AFTER_LOSS_S: Final = 12.0  # as the outbox's: acknowledged this recently, sent again
_LINE: Final = len(MAGIC) + 1 + 64 + 1 + 20 + 1 + 16 + 1


def mark_path(journal: Path) -> Path:
    return companions(journal)[3]


def _mark_line(journal_id: bytes, next_seq: int) -> bytes:
    text = f"{MAGIC} {journal_id.hex()} {next_seq:020d}"
    return f"{text} {hashlib.sha256(text.encode()).hexdigest()[:16]}\n".encode()


def read_mark(path: Path, journal_id: bytes) -> int | None:
    """The next seq to send for ``journal_id`` from its mark file; None if there is none (or
    it is for another journal, or damaged: then everything is sent again)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    parts = data.decode("ascii", "replace").split()
    if len(data) != _LINE or len(parts) != 5 or " ".join(parts[:2]) != MAGIC:
        return None
    try:
        jid, seq = bytes.fromhex(parts[2]), int(parts[3])
    except ValueError:
        return None
    if jid != journal_id or _mark_line(jid, seq) != data:
        return None
    return seq


def write_mark(path: Path, journal_id: bytes, next_seq: int) -> None:
    """Rewrite the mark in place (no fsync: a lagging mark only sends records again)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        line = _mark_line(journal_id, next_seq)
        os.pwrite(fd, line, 0)
        os.ftruncate(fd, len(line))
    finally:
        os.close(fd)


def _table_of(header: bytes) -> str | None:
    """The table id a journal's header names, or None."""
    try:
        table = orjson.loads(header)["recording"]["rules"]["table"]
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return None
    return table if isinstance(table, str) else None


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _seal_into(message: dict[str, Any], content: dict[str, Any],
               sealer: Sealer | None) -> dict[str, Any]:
    """The record's content in ``message``: as it is, or sealed for the archive (everything
    the chain covers, the hash too: the hash of a short event whose prefix and times are
    known would name its card to anyone who tries the 416 codes)."""
    if sealer is None:
        message.update(content)
    else:
        message["sealed"] = sealer.seal(content, message["key"])
        message["to"] = sealer.kid
    return message


def header_message(signer: Signer, table: str, journal_id: bytes, header: bytes, *,
                   created: str, sealer: Sealer | None = None) -> bytes:
    """The signed mirror message of a journal's header (seq 0)."""
    jid = journal_id.hex()
    return signer.sign(_seal_into({
        "v": 1, "kind": JOURNAL, "table": table, STATION_VERSION: __version__,
        "seq": 0, "prev_seq": None, "key": f"{table}:journal:{jid}:0", "ts": created,
        "journal": jid}, {"header": b64(header), "hash": jid}, sealer))


def record_message(signer: Signer, table: str, journal_id: bytes,
                   row: tuple[int, float, float, bytes, bytes],
                   messages: list[tuple[str, bytes]], *,
                   sealer: Sealer | None = None) -> bytes:
    """The signed mirror message of one committed record: ``row`` is its (seq, wall_ts,
    mono_ts, body, hash) and ``messages`` its outbox rows (topic, payload). Pure: the
    secrecy test builds it from a station's events as the mirror would."""
    seq, wall, mono, body, digest = row
    jid = journal_id.hex()
    envelope: dict[str, Any] = {
        "v": 1, "kind": JOURNAL, "table": table, STATION_VERSION: __version__,
        "seq": seq, "prev_seq": seq - 1, "key": f"{table}:journal:{jid}:{seq}",
        "ts": iso_ts(wall) if 0 <= wall < 253402300800 else iso_ts(0.0), "journal": jid}
    content = {
        # repr: the shortest text that reads back as the same float64, so the archive
        # hashes exactly what the station hashed.
        "wall_ts": repr(float(wall)), "mono_ts": repr(float(mono)), "body": b64(body),
        "messages": [{"topic": t, "payload": b64(p)} for t, p in messages],
        "hash": bytes(digest).hex()}
    return signer.sign(_seal_into(envelope, content, sealer))


@dataclass(frozen=True, slots=True)
class MirrorItem:
    """One record's mirror message (or the header's, seq 0), ready to publish: one payload,
    or its parts when it is larger than a packet may be."""

    source: int  # which journal of the mirror's (its ``_Source.number``)
    journal_id: bytes
    seq: int
    out_after: int  # the last outbox id before this record (to rewind to it)
    payloads: tuple[bytes, ...]


class _Source:
    """One journal file being mirrored: its read connection and its mark."""

    def __init__(self, path: Path, current: bool, number: int) -> None:
        self.path, self.current, self.number = path, current, number
        self.conn: sqlite3.Connection | None = None
        try:
            conn = connect(path, readonly=True)
            row = conn.execute("SELECT value FROM meta WHERE key = 'header'").fetchone()
        except sqlite3.Error as exc:
            raise JournalError(f"{path}: the mirror cannot read the journal ({exc})") from exc
        if row is None or not isinstance(row[0], bytes):
            conn.close()
            raise JournalError(f"{path}: the mirror finds no header in the journal")
        self.conn = conn
        self.header: bytes = row[0]
        self.journal_id = hashlib.sha256(self.header).digest()
        self.acked = read_mark(mark_path(path), self.journal_id) or 0  # next seq not acked
        self.acked_out = self._out_before(self.acked)
        self.sent = self.acked  # the next seq not sent on this connection

    def last_seq(self) -> int:
        assert self.conn is not None
        return int(self.conn.execute("SELECT seq FROM head").fetchone()[0])

    def _out_before(self, seq: int) -> int:
        assert self.conn is not None
        (found,) = self.conn.execute("SELECT coalesce(max(id), 0) FROM outbox WHERE seq < ?",
                                     (seq,)).fetchone()
        return int(found)

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()
            self.conn = None


class JournalMirror:
    """The records of the table's journal (and of journals moved aside that are not fully
    mirrored yet) as signed ``journal`` messages. Used by the MQTT publisher's thread only.
    Raises ``JournalError`` when a journal cannot be read."""

    def __init__(self, journal: Path, *, table: str, signer: Signer,
                 sealer: Sealer | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.path = journal
        self.table = table
        self._signer = signer
        self._sealer = sealer  # None: the content in clear (a test, or an archive's own)
        self._clock = clock
        self._sources: list[_Source] | None = None
        self._numbers = 0
        self._cursor = (0, 0, 0)  # (source number, next seq to send, last outbox id sent)
        # The archive's ``resend`` (path, journal id, seq), from the loop thread.
        self._asked: tuple[Path, bytes, int] | None = None
        self._asked_lock = threading.Lock()
        self._recent: deque[tuple[float, MirrorItem]] = deque(maxlen=2000)
        self.oversize = 0  # records sent in parts, for the log and the tests

    # --- the journals -----------------------------------------------------------------------

    def _open(self) -> list[_Source]:
        if self._sources is None:
            # In the order they were created (a name's "-2" would sort before its first).
            found = sorted(self._old_sources(),
                           key=lambda s: (self._created(s.header), s.path.name))
            sources = [s for s in found if s.acked <= s.last_seq()]
            for s in found:
                if s not in sources:
                    s.close()
            sources.append(_Source(self.path, True, self._number()))
            self._sources = sources
            for s in sources[:-1]:
                log.info("mirror: %s is mirrored to its end first (from record %d)", s.path,
                         s.acked)
            first = sources[0]
            self._cursor = (first.number, first.acked, first.acked_out)
        return self._sources

    def _number(self) -> int:
        self._numbers += 1
        return self._numbers

    def _by_number(self, number: int) -> _Source:
        for s in self._open():
            if s.number == number:
                return s
        raise KeyError(number)

    def _next_source(self) -> _Source:
        """Where to go on from: the first journal (oldest first) with a record not yet
        sent on this connection, or the journal in use."""
        sources = self._open()
        for s in sources:
            if not s.current and s.sent <= s.last_seq():
                return s
        return sources[-1]

    def _old_sources(self) -> list[_Source]:
        """The journals moved aside that are this table's and can be read; one that cannot
        is said in the log and left out (it must not hold up the journal in use)."""
        out = []
        for path in self._moved_aside():
            try:
                source = _Source(path, False, self._number())
            except JournalError as exc:
                log.warning("mirror: %s is not mirrored: %s", path, exc)
                continue
            if _table_of(source.header) != self.table:
                source.close()  # another table's journal that shares the folder
                continue
            out.append(source)
        return out

    def _moved_aside(self) -> list[Path]:
        """Journals this one replaced that have a mark file (were being mirrored), oldest
        first: ``<stem>-<created>[-n]<suffix>`` beside it."""
        folder, stem, suffix = self.path.parent, self.path.stem, self.path.suffix
        out = []
        with contextlib.suppress(OSError):
            for p in folder.iterdir():
                if (p.name.startswith(f"{stem}-") and p.name.endswith(suffix)
                        and p != self.path and mark_path(p).exists()):
                    out.append(p)
        return sorted(out)

    # --- the publisher's side -----------------------------------------------------------------

    def take(self, limit: int, max_bytes: int = PART_BYTES) -> list[MirrorItem]:
        """Up to ``limit`` items after the last one taken (none when caught up)."""
        self._open()
        out: list[MirrorItem] = []
        try:
            self._take_asked()
            while len(out) < limit:
                number, seq, out_id = self._cursor
                source = self._by_number(number)
                got = self._read(number, source, seq, out_id=out_id, limit=limit - len(out),
                                 max_bytes=max_bytes)
                out.extend(got)
                if got:
                    last = got[-1]
                    self._cursor = (number, last.seq + 1, self._last_out)
                    source.sent = max(source.sent, last.seq + 1)
                    continue
                nxt = self._next_source()
                if nxt is source:
                    break
                self._cursor = (nxt.number, nxt.sent, nxt._out_before(nxt.sent))
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: the mirror cannot read the journal ({exc})") \
                from exc
        return out

    def resend(self, path: Path, journal_id: bytes, seq: int) -> None:
        """The archive lacks ``journal_id`` (the journal at ``path``, the one in use or one
        moved aside) from record ``seq`` on: the next ``take`` starts there, then goes on
        with every journal's records not yet sent. Any thread may call it."""
        with self._asked_lock:
            self._asked = (path, journal_id, seq)

    def _take_asked(self) -> None:
        with self._asked_lock:
            asked, self._asked = self._asked, None
        if asked is None:
            return
        path, journal_id, seq = asked
        sources = self._open()
        source = next((s for s in sources if s.journal_id == journal_id), None)
        if source is None:
            # A journal moved aside whose mirror had ended: opened again for the archive.
            try:
                source = _Source(path, False, self._number())
            except JournalError as exc:
                log.warning("mirror: cannot send %s again: %s", path, exc)
                return
            if source.journal_id != journal_id:
                source.close()
                log.warning("mirror: %s is no longer journal %s; not sent again", path,
                            journal_id.hex()[:16])
                return
            created = self._created(source.header)
            at = next((i for i, s in enumerate(sources)
                       if s.current or self._created(s.header) > created), len(sources) - 1)
            sources.insert(at, source)
        seq = max(0, min(seq, source.last_seq() + 1))
        source.sent = min(source.sent, seq)
        self._cursor = (source.number, seq, source._out_before(seq))
        log.info("mirror: the archive asked for journal %s again from record %d",
                 journal_id.hex()[:16], seq)

    def _read(self, number: int, source: _Source, seq: int, *, out_id: int, limit: int,
              max_bytes: int) -> list[MirrorItem]:
        assert source.conn is not None
        items: list[MirrorItem] = []
        self._last_out = out_id
        if seq == 0:
            items.append(self._item(number, source, 0, out_after=out_id,
                                    payload=self._header(source), max_bytes=max_bytes))
            seq, limit = 1, limit - 1
            if limit <= 0:
                return items
        conn = source.conn
        conn.execute("BEGIN")  # one snapshot: the records and their outbox rows agree
        try:
            rows = conn.execute("SELECT seq, wall_ts, mono_ts, body, hash FROM events "
                                "WHERE seq >= ? ORDER BY seq LIMIT ?", (seq, limit)).fetchall()
            if not rows:
                return items
            last = rows[-1][0]
            messages: dict[int, list[tuple[str, bytes]]] = {}
            last_id: dict[int, int] = {}
            for row_id, rseq, topic, payload in conn.execute(
                    "SELECT id, seq, topic, payload FROM outbox WHERE id > ? ORDER BY id",
                    (out_id,)):
                if rseq > last:
                    break
                messages.setdefault(rseq, []).append((bytes(topic).decode(), bytes(payload)))
                last_id[rseq] = self._last_out = row_id
        finally:
            conn.execute("COMMIT")
        before = out_id
        for rseq, wall, mono, body, digest in rows:
            msgs = messages.get(rseq, [])
            payload = self._record(source, (rseq, wall, mono, body, digest), msgs)
            items.append(self._item(number, source, rseq, out_after=before, payload=payload,
                                    max_bytes=max_bytes))
            before = last_id.get(rseq, before)
        return items

    def _header(self, source: _Source) -> bytes:
        return header_message(self._signer, self.table, source.journal_id, source.header,
                              created=self._created(source.header), sealer=self._sealer)

    @staticmethod
    def _created(header: bytes) -> str:
        with contextlib.suppress(orjson.JSONDecodeError, AttributeError, TypeError):
            created = str(orjson.loads(header).get("created", ""))
            if len(created) >= 23:
                return created[:23] + "Z"
        return iso_ts(0.0)

    def _record(self, source: _Source, row: tuple[int, float, float, bytes, bytes],
                messages: list[tuple[str, bytes]]) -> bytes:
        return record_message(self._signer, self.table, source.journal_id, row, messages,
                              sealer=self._sealer)

    def _item(self, number: int, source: _Source, seq: int, *, out_after: int,
              payload: bytes, max_bytes: int) -> MirrorItem:
        if len(payload) <= max_bytes:
            return MirrorItem(number, source.journal_id, seq, out_after, (payload,))
        self.oversize += 1
        chunk = max(64, (max_bytes - PART_OVERHEAD) * 3 // 4)
        pieces = [payload[i:i + chunk] for i in range(0, len(payload), chunk)]
        log.info("mirror: record %d is %d bytes, over the %d a packet may carry: sent in %d "
                 "parts", seq, len(payload), max_bytes, len(pieces))
        jid = source.journal_id.hex()
        parts = tuple(self._signer.sign({
            "v": 1, "kind": JOURNAL, "table": self.table, STATION_VERSION: __version__,
            "seq": seq,
            "prev_seq": None if seq == 0 else seq - 1,
            "key": f"{self.table}:journal:{jid}:{seq}:part:{n}", "ts": iso_ts(0.0),
            "journal": jid, "part": n, "parts": len(pieces), "data": b64(piece)})
            for n, piece in enumerate(pieces, start=1))
        return MirrorItem(number, source.journal_id, seq, out_after, parts)

    def acknowledged(self, items: list[MirrorItem]) -> None:
        """The broker acknowledged these items (in order, every one before them too)."""
        now = self._clock()
        touched: dict[int, _Source] = {}
        for item in items:
            try:
                source = self._by_number(item.source)
            except KeyError:
                continue  # closed meanwhile (a rewind cannot close one): nothing to mark
            if item.seq + 1 > source.acked:
                source.acked = item.seq + 1
                touched[item.source] = source
            self._recent.append((now, item))
        for s in touched.values():
            try:
                write_mark(mark_path(s.path), s.journal_id, s.acked)
            except OSError as exc:
                log.warning("mirror: cannot update %s (%s); records will be sent again",
                            mark_path(s.path), exc.strerror or exc)

    def rewind(self, resend_recent: bool) -> None:
        """A new connection: send again from the first item not acknowledged, or from the
        first acknowledged in the last seconds before a lost connection (a broker killed
        then may have lost messages it had acknowledged)."""
        sources = self._open()
        order = {s.number: i for i, s in enumerate(sources)}
        since = self._clock() - RESEND_AFTER_LOSS_S
        recent = [item for at, item in self._recent
                  if at >= since and item.source in order] if resend_recent else []
        for s in sources:
            s.sent = s.acked
        if recent:
            first = min(recent, key=lambda i: (order[i.source], i.seq))
            source = self._by_number(first.source)
            for item in recent:
                held = self._by_number(item.source)
                held.sent = min(held.sent, item.seq)
            self._cursor = (first.source, first.seq, first.out_after)
            source.sent = min(source.sent, first.seq)
            return
        for s in sources:
            if s.current or s.acked <= s.last_seq():
                self._cursor = (s.number, s.acked, s._out_before(s.acked))
                return

    def pending(self) -> int:
        """Records (and headers) not yet acknowledged, over every journal being mirrored."""
        sources = self._open()
        try:
            return sum(max(0, s.last_seq() + 1 - s.acked) for s in sources)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: the mirror cannot read the journal ({exc})") \
                from exc

    def close(self) -> None:
        for s in self._sources or ():
            s.close()
        self._sources = None
