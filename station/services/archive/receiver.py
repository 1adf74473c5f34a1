"""What the archive does with each journal message, in order: check it, then write it or
refuse it. Nothing unverified is written.

A message is taken only when its signature verifies with its table's key (``tables.keys_dir``),
it matches the ``journal`` schema, and it continues the chain: record N of journal J is
written only if the archive holds J's header and records 1..N-1, and the record's content
hashes, from the archive's own ``H(N-1)``, to the ``hash`` it carries. A record the archive
already holds is skipped when it is the same record, and refused when it differs. Anything
refused is a ``Finding`` (the service publishes and logs it).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from drivers.events import Command
from station.journal.codec import decode_event, parse_header
from station.journal.errors import JournalError
from station.services.archive.store import ArchivedJournal, file_name, id_prefix
from station.wire.chain import outbox_digest, record_hash
from station.wire.schema import validate
from station.wire.sealing import Opener, SealError
from station.wire.signing import SignatureError, verify

log = logging.getLogger(__name__)

WRITTEN: Final = "written"
DUPLICATE: Final = "duplicate"
PART: Final = "part"
REFUSED: Final = "refused"
MAX_PARTS_BYTES: Final = 64 * 1024 * 1024  # one record's parts together, at most
OPEN_PER_TABLE: Final = 2  # archived journals kept open per table (the current and the last)


# The archive's alert problems (``archive_alert``'s ``problem``, docs/journal.md), declared
# once: tests/archive/test_archive_problems.py holds what the receiver raises and the doc to it.
PROBLEMS: Final = ("signature", "malformed", "sealed", "unknown_table", "gap", "chain",
                   "conflict", "storage")
# What a sealed record's content may hold (station.upstream.mirror): the header's, or a
# record's; nothing of the envelope (seq, journal, table) may come from inside.
_SEALED_HEADER: Final = frozenset({"header", "hash"})
_SEALED_RECORD: Final = frozenset({"wall_ts", "mono_ts", "body", "messages", "hash"})


@dataclass(frozen=True, slots=True)
class Finding:
    """Why a message was refused: ``problem`` is one of ``PROBLEMS``."""

    table: str
    problem: str
    detail: str
    journal: str | None = None
    seq: int | None = None
    # A gap's first record the archive lacks (0: the journal's header): what it asks the
    # station to send again (a signed ``resend``, docs/journal.md).
    missing: int | None = None


@dataclass(frozen=True, slots=True)
class Head:
    """What an archived journal holds, verified and on disk: for an acknowledgement."""

    table: str
    journal: str
    seq: int
    head: str


class _Refused(Exception):
    def __init__(self, problem: str, detail: str, missing: int | None = None) -> None:
        super().__init__(detail)
        self.problem, self.detail, self.missing = problem, detail, missing


def _b64(value: Any, what: str) -> bytes:
    try:
        if not isinstance(value, str):
            raise ValueError
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise _Refused("malformed", f"{what} is not base64") from None


class Receiver:
    """The archive's state: one folder per table under ``root``, each archived journal
    named by its creation and journal id. Used by one thread."""

    def __init__(self, root: Path, keys: dict[str, Ed25519PublicKey],
                 opener: Opener | None = None) -> None:
        self.root = root
        self.keys = keys
        self.opener = opener  # the archive's mirror key; None: sealed records are refused
        self._open: dict[str, dict[bytes, ArchivedJournal]] = {}  # table -> id -> journal
        self._parts: dict[str, tuple[str, int, int, list[bytes]]] = {}
        self._dirty: set[tuple[str, bytes]] = set()
        self._news: set[tuple[str, bytes]] = set()  # dirty with a record that is not an ack
        # Journals a newer one followed, acknowledged at once to their end: their heads are
        # taken after the commit that writes their last records (never before, which would
        # name an end short of the one on disk), into ``ended``.
        self._ending: set[tuple[str, bytes]] = set()
        self._previous_done: set[str] = set()  # tables whose previous journal is ended
        self.ended: list[Head] = []
        self.written_wall: dict[str, tuple[int, float]] = {}  # table -> the last taken's

    # --- one message ------------------------------------------------------------------------

    def take(self, table: str, payload: bytes) -> tuple[str, Finding | None]:
        """Check one message of ``<prefix>/<table>/journal`` and queue it for writing."""
        jid: str | None = None
        seq: int | None = None
        try:
            key = self.keys.get(table)
            if key is None:
                raise _Refused("unknown_table", f"no public key for table {table!r} in "
                               "tables.keys_dir; add its key, or stop its mirror")
            message = self._verified(payload, key, table)
            jid, seq = str(message["journal"]), int(message["seq"])
            if "part" in message:
                whole = self._part(table, message)
                if whole is None:
                    return PART, None
                inner = self._verified(whole, key, table)
                if "part" in inner or inner["journal"] != jid or inner["seq"] != seq:
                    raise _Refused("malformed", "the parts do not make up the record they "
                                   "are parts of")
                message = inner
            if "sealed" in message:
                message = self._opened(message)
            return self._apply(table, message), None
        except _Refused as exc:
            return REFUSED, Finding(table, exc.problem, exc.detail, jid, seq, exc.missing)
        except JournalError as exc:
            return REFUSED, Finding(table, "storage", str(exc), jid, seq)

    def _verified(self, payload: bytes, key: Ed25519PublicKey, table: str) -> dict[str, Any]:
        try:
            message = orjson.loads(payload)
        except orjson.JSONDecodeError:
            raise _Refused("malformed", "not JSON") from None
        if not isinstance(message, dict):
            raise _Refused("malformed", "not a JSON object")
        try:
            verify(message, key)
        except SignatureError as exc:
            raise _Refused("signature", f"signature refused: {exc}") from None
        if message.get("kind") != "journal":
            raise _Refused("malformed", f"kind {str(message.get('kind'))[:40]!r} on the "
                           "journal topic")
        try:
            validate(message)
        except ValueError as exc:
            raise _Refused("malformed", str(exc)[:300]) from None
        if message["table"] != table:
            raise _Refused("malformed", f"a message of table {message['table'][:64]!r} on "
                           f"table {table!r}'s topic")
        return message

    def _opened(self, m: dict[str, Any]) -> dict[str, Any]:
        """A sealed record (signature checked) with its content opened and checked as a
        record in clear is."""
        if self.opener is None:
            raise _Refused("sealed", "the record is sealed for an archive key, and this "
                           "archive has none: set archive.mirror_key_file (or the unit's "
                           "credential mirror-key) to the key the stations seal for")
        try:
            content = self.opener.open(m["sealed"], m["to"], m["key"])
        except SealError as exc:
            raise _Refused("sealed", str(exc)) from None
        allowed = _SEALED_HEADER if m["seq"] == 0 else _SEALED_RECORD
        if set(content) != allowed:
            raise _Refused("malformed", "the sealed content holds "
                           f"{sorted(content)[:8]}, not {sorted(allowed)}")
        opened = {k: v for k, v in m.items() if k not in ("sealed", "to")}
        opened.update(content)
        try:
            validate(opened)
        except ValueError as exc:
            raise _Refused("malformed", f"the sealed content: {str(exc)[:300]}") from None
        return opened

    def _part(self, table: str, m: dict[str, Any]) -> bytes | None:
        jid, seq, part, parts = m["journal"], m["seq"], m["part"], m["parts"]
        held = self._parts.get(table)
        if part == 1:
            held = (jid, seq, parts, [])
        if held is None or held[:3] != (jid, seq, parts) or len(held[3]) != part - 1:
            self._parts.pop(table, None)
            raise _Refused("gap", f"part {part} of {parts} of record {seq} without the parts "
                           "before it", missing=seq)
        held[3].append(_b64(m["data"], "data"))
        if sum(len(p) for p in held[3]) > MAX_PARTS_BYTES:
            self._parts.pop(table, None)
            raise _Refused("malformed", f"record {seq}'s parts exceed {MAX_PARTS_BYTES} bytes")
        if part < parts:
            self._parts[table] = held
            return None
        self._parts.pop(table, None)
        return b"".join(held[3])

    def _apply(self, table: str, m: dict[str, Any]) -> str:
        jid_hex, seq = str(m["journal"]), int(m["seq"])
        jid = bytes.fromhex(jid_hex)
        if seq == 0:
            return self._header(table, jid, m)
        journal = self._journal(table, jid)
        if journal is None:
            raise _Refused("gap", f"record {seq} of a journal whose header the archive does "
                           "not hold", missing=0)
        try:
            wall, mono = float(m["wall_ts"]), float(m["mono_ts"])
        except ValueError:
            raise _Refused("malformed", "wall_ts or mono_ts is not a number") from None
        if not (math.isfinite(wall) and math.isfinite(mono)):
            raise _Refused("malformed", "wall_ts or mono_ts is not a time")
        body = _b64(m["body"], "body")
        messages: list[tuple[str, bytes]] = [
            (str(x["topic"]), _b64(x["payload"], "a message's payload")) for x in m["messages"]]
        claimed = bytes.fromhex(m["hash"])
        digest = outbox_digest(messages)
        held = journal.stored_hashes(seq)
        if held is not None:
            prev, mine = held
            if record_hash(prev, seq=seq, wall_ts=wall, mono_ts=mono, digest=digest,
                           body=body) == mine == claimed:
                # Held already, but maybe never acknowledged (an archive killed between its
                # commit and its acknowledgement): worth acknowledging as a new one is.
                if not _is_ack(body):
                    self._news.add((table, jid))
                    self._dirty.add((table, jid))
                return DUPLICATE
            raise _Refused("conflict", f"record {seq} differs from the record {seq} the "
                           "archive holds (a rewritten history, or a forgery)")
        if seq != journal.last_seq + 1:
            missing = (f"record {seq - 1} is" if seq - 1 == journal.last_seq + 1 else
                       f"records {journal.last_seq + 1} to {seq - 1} are")
            raise _Refused("gap", f"record {seq} arrived after record {journal.last_seq}: "
                           f"{missing} missing", missing=journal.last_seq + 1)
        if record_hash(journal.head, seq=seq, wall_ts=wall, mono_ts=mono, digest=digest,
                       body=body) != claimed:
            raise _Refused("chain", f"record {seq} does not continue the chain: its content "
                           f"does not hash, from record {seq - 1}'s hash, to the hash it "
                           "carries")
        try:
            event = decode_event(body)
        except ValueError as exc:
            raise _Refused("malformed", f"record {seq}'s body is not an event ({exc})") \
                from None
        journal.add(seq, wall=wall, mono=mono, body=body, messages=messages, digest=claimed)
        self.written_wall[table] = (seq, wall)
        self._dirty.add((table, jid))
        # The station journals every acknowledgement it takes, so each ack is a new record:
        # acknowledging records that are only acks would keep an idle table writing one
        # record per ACK_EVERY_S for ever. Only other records make a head worth acknowledging
        # (a journal's end is acknowledged whatever its last record is).
        if not (isinstance(event, Command) and event.action == "archived"):
            self._news.add((table, jid))
        return WRITTEN

    def _header(self, table: str, jid: bytes, m: dict[str, Any]) -> str:
        header = _b64(m["header"], "header")
        if hashlib.sha256(header).digest() != jid or m["hash"] != jid.hex():
            raise _Refused("chain", "the header does not hash to its journal id")
        if self._journal(table, jid) is not None:
            return DUPLICATE
        try:
            created = parse_header(header).created
        except ValueError as exc:
            raise _Refused("malformed", f"the header is not a journal's ({exc})") from None
        for other in self._open.get(table, {}):
            self._ending.add((table, other))
        path = self.root / table / file_name(created, jid)
        journal = ArchivedJournal.create(path, header, jid)
        self._keep(table, jid, journal)
        self._end_previous(table, path)
        log.info("archive: table %s: journal %s starts (%s)", table, jid.hex()[:16], path)
        return WRITTEN

    # --- the archived journals ------------------------------------------------------------

    def _journal(self, table: str, jid: bytes) -> ArchivedJournal | None:
        opened = self._open.get(table, {})
        if jid in opened:
            return opened[jid]
        folder = self.root / table
        want = jid.hex()[:16]
        if not folder.is_dir():
            return None
        for path in sorted(folder.iterdir()):
            if id_prefix(path) == want:
                journal = ArchivedJournal(path)  # verified whole as it opens
                if journal.journal_id != jid:
                    journal.close()
                    continue
                self._keep(table, jid, journal)
                self._end_previous(table, path)
                return journal
        return None

    def _end_previous(self, table: str, path: Path) -> None:
        """Once per table and process, acknowledge the journal before ``path`` to its end:
        one that rotated while the archive was away (or whose end's acknowledgement the
        station missed) has no other moment to be, and retention waits for it."""
        if table in self._previous_done:
            return
        self._previous_done.add(table)
        before = sorted(p for p in path.parent.iterdir()
                        if id_prefix(p) is not None and p.name < path.name)
        if not before:
            return
        try:
            journal = ArchivedJournal(before[-1])  # verified whole as it opens
        except JournalError as exc:
            log.warning("archive: table %s: the journal before %s is not acknowledged: %s",
                        table, path.name, exc)
            return
        if journal.journal_id in self._open.get(table, {}):
            journal.close()
            journal = self._open[table][journal.journal_id]
        else:
            self._keep(table, journal.journal_id, journal)
        self._ending.add((table, journal.journal_id))

    def _keep(self, table: str, jid: bytes, journal: ArchivedJournal) -> None:
        opened = self._open.setdefault(table, {})
        opened[jid] = journal
        while len(opened) > OPEN_PER_TABLE:
            oldest = next(iter(opened))
            if (table, oldest) in self._dirty or (table, oldest) in self._ending:
                break
            opened.pop(oldest).close()

    @staticmethod
    def _head(table: str, journal: ArchivedJournal) -> Head:
        return Head(table, journal.journal_id.hex(), journal.synced_seq,
                    journal._hash_of(journal.synced_seq).hex())

    def commit(self) -> tuple[list[Head], list[Finding]]:
        """Write every queued record (one durable transaction per journal); the heads now
        on disk, and what could not be written (its journal's queue is dropped: the caller
        takes those messages again)."""
        heads: list[Head] = []
        failed: list[Finding] = []
        for table, jid in sorted(self._dirty | self._ending):
            journal = self._open.get(table, {}).get(jid)
            if journal is None:
                self._ending.discard((table, jid))
                continue
            try:
                journal.commit()
            except JournalError as exc:
                failed.append(Finding(table, "storage", str(exc), jid.hex(), None))
                continue
            if (table, jid) in self._ending:
                self._ending.discard((table, jid))
                head = self._head(table, journal)
                self.ended.append(head)
                heads.append(head)
            elif (table, jid) in self._news:
                heads.append(self._head(table, journal))
        self._dirty.clear()
        self._news.clear()
        return heads, failed

    def forget(self, table: str) -> None:
        """Drop what is queued for ``table`` and not written (a storage failure): its
        messages are taken again, in order, when the archive retries."""
        for jid, journal in self._open.get(table, {}).items():
            journal.drop_batch()
            self._dirty.discard((table, jid))
            self._news.discard((table, jid))
        self._parts.pop(table, None)

    def close(self) -> None:
        for opened in self._open.values():
            for journal in opened.values():
                journal.drop_batch()
                journal.close()
        self._open.clear()


def _is_ack(body: bytes) -> bool:
    """Whether a record's body is an ``archived`` command (an acknowledgement journaled)."""
    try:
        event = decode_event(body)
    except ValueError:
        return False
    return isinstance(event, Command) and event.action == "archived"
