"""The archive's acknowledgements (the upstream ``archived`` command), as the journal keeps them.

Pure. An ``archived`` command names a journal (its id: the hex of ``H(0)``), a record ``seq``
and that record's chain hash ``head``. Whether this station holds that record is a fact of its
disk (the current journal, or one moved aside), which a replay on another machine cannot look
up; so the daemon checks it when the command arrives and journals the command with the
answer in its note (``ack_note``), and the station, applying it, reads the answer back
(``parse_ack``). A replay of the journal gives the same answer with no disk at all.

Note format (one line, ASCII)::

    journal <64 hex> seq <n> head <64 hex>                      the station holds it
    journal <64 hex> seq <n> head <64 hex>; not held: <detail>   it does not, and why

The archive's ``resend`` (a journal again from a record it lacks) is journaled the same way,
``journal <64 hex> from seq <n>`` with the same ``; not held: <detail>`` when the station no
longer holds that record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

HEX64: Final = re.compile(r"[0-9a-f]{64}")
MAX_SEQ: Final = 2**53 - 1  # what a signed message carries exactly (station.wire.canonical)
MARKS_KEPT: Final = 16  # journals whose last acknowledgement the station keeps in memory
_NOTE = re.compile(r"journal ([0-9a-f]{64}) seq (0|[1-9][0-9]{0,18}) head ([0-9a-f]{64})"
                   r"(?:; not held: (.+))?", re.DOTALL)
_NOT_HELD = "; not held: "


@dataclass(frozen=True, slots=True)
class Ack:
    """What an ``archived`` command claimed and, when the station did not hold it, why."""

    journal: str
    seq: int
    head: str
    refusal: str | None = None  # None: the station holds that record with that head


@dataclass(frozen=True, slots=True)
class ArchiveMark:
    """The last acknowledgement the station took for one journal."""

    seq: int
    head: str
    by: str  # the command's actor as journaled: upstream:<name>[/<actor>] [<id>]
    ts: float  # when the station took it (the command's journal time)


def ack_note(journal: str, seq: int, head: str, refusal: str | None = None) -> str:
    note = f"journal {journal} seq {seq} head {head}"
    return note if refusal is None else f"{note}{_NOT_HELD}{refusal}"


def parse_ack(note: str | None) -> Ack | None:
    """The acknowledgement a journaled ``archived`` command's note holds; None if the note is
    not one (a recording edited by hand: the station refuses it as malformed)."""
    if note is None:
        return None
    m = _NOTE.fullmatch(note)
    if m is None or int(m.group(2)) > MAX_SEQ:
        return None
    return Ack(m.group(1), int(m.group(2)), m.group(3), m.group(4))


_RESEND = re.compile(r"journal ([0-9a-f]{64}) from seq (0|[1-9][0-9]{0,18})"
                     r"(?:; not held: (.+))?", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Resend:
    """What a ``resend`` asked for (a journal again from a record) and, when the station
    does not hold it, why: journaled with the command as an ``archived`` is."""

    journal: str
    seq: int
    refusal: str | None = None


def resend_note(journal: str, seq: int, refusal: str | None = None) -> str:
    note = f"journal {journal} from seq {seq}"
    return note if refusal is None else f"{note}{_NOT_HELD}{refusal}"


def parse_resend(note: str | None) -> Resend | None:
    """The request a journaled ``resend``'s note holds; None if the note is not one."""
    if note is None:
        return None
    m = _RESEND.fullmatch(note)
    if m is None or int(m.group(2)) > MAX_SEQ:
        return None
    return Resend(m.group(1), int(m.group(2)), m.group(3))


def claim_problem(journal: object, seq: object, head: object) -> str | None:
    """What is wrong with an ``archived`` command's three fields, or None."""
    if not isinstance(journal, str) or HEX64.fullmatch(journal) is None:
        return "'journal' must be a journal id: 64 lowercase hex digits (H(0))"
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        return f"'seq' must be a whole number from 0 to {MAX_SEQ}"
    if not isinstance(head, str) or HEX64.fullmatch(head) is None:
        return "'head' must be a chain hash: 64 lowercase hex digits (H(seq))"
    return None


def take(marks: dict[str, ArchiveMark], ack: Ack, by: str, ts: float) -> None:
    """Keep ``ack`` as its journal's mark when it goes as far as the one kept (an archive
    that acknowledges an earlier record again moves nothing back); at most MARKS_KEPT
    journals, the least recently acknowledged dropped first."""
    old = marks.pop(ack.journal, None)
    if old is not None and old.seq > ack.seq:
        marks[ack.journal] = old
        return
    marks[ack.journal] = ArchiveMark(ack.seq, ack.head, by, ts)
    while len(marks) > MARKS_KEPT:
        del marks[next(iter(marks))]
