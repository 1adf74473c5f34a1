"""Which journals moved aside may be deleted, and why each is kept or goes (docs/journal.md).

Pure: the facts of the journals (read by ``station.journal.prune``), the archive's acknowledgements
(read back from the journals), the time and the limits in, one verdict per journal out.

A journal moved aside goes only when all of these hold:

- no station holds it (its head file's lock) and its facts could be read (it verified);
- the archive acknowledged its LAST record: an ``archived`` naming its id, its last seq and
  that record's chain hash, taken by the station (so the archive holds every input event of
  it, verified against the chain);
- it is outside both limits: it ended more than ``days`` days ago, AND the journals newer than
  it (the one in use included) hold at least ``shoes`` shoes.
- (``protect``) it does not hold the only acknowledgement of a journal that stays.

The limits are a floor of local history, "keep at least N days and N shoes": both must be
passed. A journal never spans a shoe (one is moved aside between shoes only), so counting
whole journals' shoes is exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from station.settings.retention import RetentionLimits

DAY_S = 86_400.0


@dataclass(frozen=True, slots=True)
class AsideJournal:
    """A journal moved aside, as read from its file."""

    name: str  # the file, as the listing shows it
    journal_id: str  # hex of H(0)
    last_seq: int
    head: str  # hex of H(last_seq); the journal id when it has no record
    ended: float  # the wall time of its last record (of its creation when it has none)
    shoes: int  # shoes started in it
    in_use: bool = False  # a station holds its lock
    problem: str = ""  # why it could not be read or verified: then it is kept, whatever else


@dataclass(frozen=True, slots=True)
class AckSeen:
    """An acknowledgement the station took (a journaled ``archived`` that it held)."""

    journal: str
    seq: int
    head: str
    by: str
    ts: float
    source: str = ""  # the journal moved aside it is journaled in ("": the one in use)


@dataclass(frozen=True, slots=True)
class Verdict:
    journal: AsideJournal
    delete: bool
    reason: str
    held: str = ""  # what the archive holds of it, in words (also when the reason is another)


def iso(ts: float) -> str:
    try:
        return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return f"{ts!r}"


def _shoes(n: int) -> str:
    return f"{n} shoe" if n == 1 else f"{n} shoes"


def _final_ack(j: AsideJournal, acks: Sequence[AckSeen]) -> AckSeen | None:
    """The acknowledgement of ``j``'s last record with its head, the first taken."""
    for a in acks:
        if a.journal == j.journal_id and a.seq == j.last_seq and a.head == j.head:
            return a
    return None


def held(j: AsideJournal, acks: Sequence[AckSeen]) -> str:
    """What the archive acknowledged of ``j``, in words."""
    final = _final_ack(j, acks)
    if final is not None:
        return (f"acknowledged up to its last record (seq {j.last_seq}) by {final.by} at "
                f"{iso(final.ts)}")
    best = max((a.seq for a in acks if a.journal == j.journal_id and a.seq <= j.last_seq),
               default=None)
    if best is None:
        return f"not acknowledged (the archive has acknowledged none of its {j.last_seq} records)"
    return f"not acknowledged (the archive has up to seq {best} of {j.last_seq})"


def decide(aside: Iterable[AsideJournal], current_shoes: int, acks: Iterable[AckSeen],
           now: float, limits: RetentionLimits) -> list[Verdict]:
    """One verdict per journal moved aside, oldest first. ``current_shoes``: the shoes in
    the journal in use (it is newer than every one moved aside)."""
    ordered = sorted(aside, key=lambda j: (j.ended, j.name), reverse=True)  # newest first
    acks = list(acks)
    verdicts: list[Verdict] = []
    newer_shoes = max(0, current_shoes)
    for j in ordered:
        days = (now - j.ended) / DAY_S
        outside = days > limits.days and newer_shoes >= limits.shoes
        since = f"ended {days:.1f} days ago, {_shoes(newer_shoes)} since"
        verdicts.append(_verdict(j, acks, outside, since, limits))
        newer_shoes += max(0, j.shoes)
    verdicts.reverse()
    return verdicts


def _verdict(j: AsideJournal, acks: Sequence[AckSeen], outside: bool, since: str,
             limits: RetentionLimits) -> Verdict:
    if j.problem:
        return Verdict(j, False, f"cannot be read or verified ({j.problem})", "unknown")
    said = held(j, acks)
    if j.in_use:
        return Verdict(j, False, "in use (a station holds its head file's lock)", said)
    keeps = f"retention keeps {limits.days} days and {_shoes(limits.shoes)}"
    if not outside:
        return Verdict(j, False, f"within retention ({since}; {keeps}); {said}", said)
    if _final_ack(j, acks) is None:
        return Verdict(j, False, f"{said}; outside retention ({since}; {keeps})", said)
    return Verdict(j, True, f"{said}; older than {limits.days} days and "
                            f"{_shoes(limits.shoes)} ({since})", said)


def protect(verdicts: Sequence[Verdict], acks: Iterable[AckSeen]) -> list[Verdict]:
    """``verdicts``, but a journal that would go while it holds the only acknowledgement of
    a journal that stays (one in use or found damaged, for instance) stays too: deleting it
    would leave that journal unacknowledged for ever. Oldest first."""
    out = list(verdicts)
    acks = list(acks)
    while True:
        going = {v.journal.name: i for i, v in enumerate(out) if v.delete}
        flip = None
        for v in out:
            j = v.journal
            if v.delete or not j.journal_id:
                continue
            sources = {a.source for a in acks if a.journal == j.journal_id
                       and a.seq == j.last_seq and a.head == j.head}
            if sources and sources <= going.keys():
                flip = (min(going[s] for s in sources), j.name)
                break
        if flip is None:
            return out
        i, name = flip
        v = out[i]
        out[i] = Verdict(v.journal, False, f"holds the acknowledgement of {name}, which is "
                                           f"kept; {v.held}", v.held)
