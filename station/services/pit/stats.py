"""Shift and dealer statistics from the pit journal's ``seen`` rows (issue 23; pure, no I/O).

What a pit manager asks of a shift (UKGC RTS 17: game statistics by staff): per table and
per dealer, the rounds (complete, void), rounds per hour, the pauses and voids by reason and
the time paused, over a period ``[start, end)``. Every definition is in docs/pit.md
("Statistics"); in short:

- Times are the station's (the messages' ``ts``), never when the pit received them.
- A round belongs to the period when its result (the ``round`` message) is in it, and to the
  dealer its record names (``dealer``, the dealer signed in when it was published).
- Rounds per hour = rounds / dealing time. Dealing time is the sum of *stints*: a stint is a
  run of a table's rounds with no more than ``idle_s`` (15 min) from one round's result to
  the next one's start (its ``betting_open``), from the start of its first round to the
  result of its last, clipped to the period. A dealer's stints also end at every ``dealer``
  message (sign in, out, change) and when the next round is another dealer's. So a table
  closed for an hour, or a dealer on a break, does not count as dealing; pauses, shuffles and
  shoe changes inside a stint do (time paused is given beside it).
- A pause runs from the message that paused the table (``pause``, or a status saying
  ``paused`` when that was missed) to the one that ended it (``resume``, a void ``round``, a
  ``shoe_ended`` by ``void``, or a status no longer paused). Its reason is the first reason
  it had: the dealer's ``code`` when the dealer raised it, else the kind of the station's
  reason (station.table.pauses.reason_kind). It counts in the period it started in; its time
  counts where it overlaps the period, up to ``now`` while it is still open.
- A pause belongs to the table's dealer when it started, folded from ``dealer`` messages
  and round records in ``seq`` order; a pause before the first of these (the pit started
  mid-shift) takes the dealer the next one shows was there (a ``dealer`` message's
  ``previous``, a round's ``dealer``).
- A void's reason is the kind of its ``void_reason`` (the reasons of the pause it settled),
  ``supervisor/voided_by_supervisor`` when a round was voided without a pause.

Rows come as the ``seen`` table holds them, ``(table_id, kind, seq, at, body)``, in the
order the pit applied them (report.py reads them by ``id``, with no sort); ``body`` the JSON
text, or an already parsed mapping. The pit applies each table's events in ``seq`` order and
its statuses in ``seq`` order, but the two come on two topics and interleave as they
arrived; ``_Merge`` puts each table's two back into one ``seq`` order, holding only the rows
one topic is ahead of the other (at most ``HOLD_MAX`` a table: past that the oldest goes on
and, if it was early, counts in ``out_of_order``). Only the kinds in ``READ_KINDS`` are read,
and a status body is parsed only when it can matter (a pause is open, or its text says
``paused``), so a shift's millions of card and status rows cost little. A row that cannot be
read is counted in ``skipped`` and changes nothing; nothing here raises on what a journal
holds.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

import orjson

from station.table.pauses import reason_kind
from station.table.procedures import HELD_BY_DEALER, PAUSE_WORDS

HOLD_MAX: Final = 10_000  # rows held a table while one topic is ahead of the other
IDLE_S: Final = 900.0  # a gap between rounds longer than this ends a stint (table closed)
# The kinds the statistics read; every other row is passed over unparsed.
READ_KINDS: Final = ("round", "pause", "resume", "dealer", "betting_open", "shoe_ended",
                     "status")
DEALER: Final = "dealer"  # raised by the dealer: the reason is the dealer's code
PIT_BOSS: Final = "pit_boss"  # a dealer's pause sent as a signed command: the reason is its code
STATION: Final = "station"  # a fault the station found: the reason is its kind
# a round voided with no pause, or a dealer's pause raised by a simulation's supervisor
SUPERVISOR: Final = "supervisor"
RAISED: Final = (DEALER, PIT_BOSS, SUPERVISOR, STATION)
NO_PAUSE: Final = "voided_by_supervisor"
_VOIDED_BY_SUPERVISOR: Final = "voided by supervisor"  # station.table.machine's void_reason then
_HELD: Final = HELD_BY_DEALER + ": "
_PAUSED_TEXT: Final = '"phase":"paused"'  # in a status's canonical JSON, only as that field
_UNKNOWN: Final = object()  # the dealer is not known yet (nothing has named one)

Row = tuple[str, str, int | None, str, str | bytes | Mapping[str, Any]]


def who_raised(raised_by: object) -> str:
    """Who raised a dealer's pause (a ``pause`` message's ``raised_by``, as the station's
    journal names actors, docs/messages.md): ``pit_boss`` for a signed command
    (``upstream:<key name>/<actor> [<id>]``: the pit's pit bosses, or whoever else holds a
    command key), ``supervisor`` for ``supervisor:<name>`` (a simulation's supervisor), else
    ``dealer`` (the dealer's page, its keys, ``station ctl`` at the table). The station's
    reason says "held by the dealer" whoever it was: only ``raised_by`` tells them apart."""
    if isinstance(raised_by, str):
        if raised_by.startswith("upstream:"):
            return PIT_BOSS
        if raised_by.startswith("supervisor:"):
            return SUPERVISOR
    return DEALER


def reason_of(text: str) -> tuple[str, str]:
    """``(raised, reason)`` of a pause's or void's reasons as the station wrote them."""
    if text == _VOIDED_BY_SUPERVISOR:
        return SUPERVISOR, NO_PAUSE
    if text.startswith(_HELD):
        words = text[len(_HELD):]
        for code, (en, _zh) in PAUSE_WORDS.items():
            # Alone, with the dealer's note, or followed by the faults that came after it.
            if words == en or words.startswith((en + " (", en + "; ")):
                return DEALER, code
        return DEALER, "other"
    # The cause is the first reason (the others followed it); reason_kind anchors on it.
    return STATION, reason_kind(text.split("; ", 1)[0])


def iso(t: float) -> str:
    """An epoch time as the messages write theirs: ISO 8601 UTC with ms and 'Z'."""
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def _epoch(ts: Any) -> float:
    if not isinstance(ts, str):
        raise ValueError("no ts")
    t = datetime.fromisoformat(ts)
    if t.tzinfo is None:
        raise ValueError("ts without a time zone")
    return t.timestamp()


@dataclass(slots=True)
class _Pause:
    table: str
    start: float
    raised: str
    reason: str
    dealer: Any  # str | None | _UNKNOWN
    end: float | None = None


@dataclass(slots=True)
class _Reason:
    pauses: int = 0
    paused_s: float = 0.0
    voids: int = 0


@dataclass(slots=True)
class _Group:
    complete: int = 0
    void: int = 0
    dealing_s: float = 0.0
    pauses: int = 0
    paused_s: float = 0.0
    voids: int = 0
    tables: set[str] = field(default_factory=set)
    reasons: dict[tuple[str, str], _Reason] = field(default_factory=dict)

    def reason(self, raised: str, reason: str) -> _Reason:
        r = self.reasons.get((raised, reason))
        if r is None:
            r = self.reasons[(raised, reason)] = _Reason()
        return r


@dataclass(slots=True)
class _Stint:
    dealer: Any
    start: float
    end: float


@dataclass(slots=True)
class _Table:
    name: str
    last_seq: int | None = None
    dealer: Any = _UNKNOWN
    pause: _Pause | None = None
    pending: list[_Pause] = field(default_factory=list)  # pauses whose dealer is not known yet
    opened: tuple[str, float] | None = None  # the last betting_open: round key, ts
    stint: _Stint | None = None  # the table's
    dstint: _Stint | None = None  # the dealer's


class _Fold:
    def __init__(self, start: float, end: float, until: float, idle_s: float) -> None:
        self.start, self.end, self.until, self.idle_s = start, end, until, idle_s
        self.tables: dict[str, _Table] = {}
        self.by_table: dict[str, _Group] = {}
        self.by_dealer: dict[str | None, _Group] = {}
        self.pauses: list[_Pause] = []
        self.skipped = 0
        self.out_of_order = 0

    def in_period(self, t: float) -> bool:
        return self.start <= t < self.end

    def table_group(self, name: str) -> _Group:
        g = self.by_table.get(name)
        if g is None:
            g = self.by_table[name] = _Group()
        return g

    def dealer_group(self, dealer: str | None) -> _Group:
        g = self.by_dealer.get(dealer)
        if g is None:
            g = self.by_dealer[dealer] = _Group()
        return g

    # --- one row ----------------------------------------------------------------------------
    def row(self, table_id: str, kind: str, seq: int, body: Any) -> None:
        t = self.tables.get(table_id)
        if t is None:
            t = self.tables[table_id] = _Table(table_id)
        if t.last_seq is not None and seq <= t.last_seq:
            self.out_of_order += 1
        t.last_seq = seq
        if kind == "status" and t.pause is None and not _may_be_paused(body):
            return  # the common case, unparsed: a status while the table plays
        m = body if isinstance(body, Mapping) else orjson.loads(body)
        if not isinstance(m, Mapping):
            raise ValueError("not an object")
        ts = _epoch(m["ts"])
        getattr(self, "_" + kind)(t, m, ts)

    def _status(self, t: _Table, m: Mapping[str, Any], ts: float) -> None:
        paused = m.get("paused")
        if t.pause is not None and paused is None:
            self._end_pause(t, ts)
        elif t.pause is None and isinstance(paused, str):
            self._start_pause(t, ts, *reason_of(paused))

    def _pause(self, t: _Table, m: Mapping[str, Any], ts: float) -> None:
        if t.pause is not None:
            return  # the open pause's reasons grew: still the same pause
        code = m.get("code")
        if m.get("raised_by") is not None and isinstance(code, str):
            self._start_pause(t, ts, who_raised(m["raised_by"]), code)
        else:
            self._start_pause(t, ts, *reason_of(str(m["reason"])))

    def _resume(self, t: _Table, m: Mapping[str, Any], ts: float) -> None:
        self._end_pause(t, ts)

    def _shoe_ended(self, t: _Table, m: Mapping[str, Any], ts: float) -> None:
        if m.get("reason") == "void":
            self._end_pause(t, ts)

    def _betting_open(self, t: _Table, m: Mapping[str, Any], ts: float) -> None:
        t.opened = (str(m["round_key"]), ts)

    def _dealer(self, t: _Table, m: Mapping[str, Any], ts: float) -> None:
        self._know_dealer(t, _dealer_id(m.get("previous")))
        t.dealer = _dealer_id(m.get("dealer"))
        self._close_dealer_stint(t)

    def _round(self, t: _Table, m: Mapping[str, Any], ts: float) -> None:
        status = m["status"]
        if status not in ("complete", "void"):
            raise ValueError("a round is complete or void")
        dealer = _dealer_id(m["dealer"]) if "dealer" in m else t.dealer
        if "dealer" in m:
            self._know_dealer(t, dealer)
            t.dealer = dealer
        settled = t.pause if status == "void" else None
        if status == "void":
            self._end_pause(t, ts)
        if not self.in_period(ts):
            return
        who = None if dealer is _UNKNOWN else dealer
        tg, dg = self.table_group(t.name), self.dealer_group(who)
        dg.tables.add(t.name)
        tg.tables.add(t.name)
        if status == "void":
            raised, reason = reason_of(str(m.get("void_reason") or _VOIDED_BY_SUPERVISOR))
            if settled is not None and raised == DEALER and settled.reason == reason:
                # The void's reason reads "held by the dealer" whoever held the table: the
                # pause it settled knows who did.
                raised = settled.raised
            for g in (tg, dg):
                g.void += 1
                g.voids += 1
                g.reason(raised, reason).voids += 1
        else:
            tg.complete += 1
            dg.complete += 1
        began = t.opened[1] if t.opened is not None and t.opened[0] == m.get("key") else ts
        began = min(max(began, self.start), ts)
        t.stint = self._extend(t.stint, None, began, ts, tg)
        if t.dstint is not None and t.dstint.dealer != who:
            self._close_dealer_stint(t)
        t.dstint = self._extend(t.dstint, who, began, ts, dg)

    # --- stints and pauses ------------------------------------------------------------------
    def _extend(self, stint: _Stint | None, who: Any, began: float, ts: float,
                group: _Group) -> _Stint:
        if stint is not None and began - stint.end <= self.idle_s:
            stint.end = ts
            return stint
        if stint is not None:
            group.dealing_s += stint.end - stint.start
        return _Stint(who, began, ts)

    def _close_dealer_stint(self, t: _Table) -> None:
        if t.dstint is not None:
            self.dealer_group(t.dstint.dealer).dealing_s += t.dstint.end - t.dstint.start
            t.dstint = None

    def _start_pause(self, t: _Table, ts: float, raised: str, reason: str) -> None:
        p = _Pause(t.name, ts, raised, reason, t.dealer)
        t.pause = p
        self.pauses.append(p)
        if p.dealer is _UNKNOWN:
            t.pending.append(p)

    def _end_pause(self, t: _Table, ts: float) -> None:
        if t.pause is not None:
            t.pause.end = ts
            t.pause = None

    def _know_dealer(self, t: _Table, dealer: Any) -> None:
        """The dealer was ``dealer`` until now: the pauses waiting for a dealer were theirs."""
        if t.dealer is _UNKNOWN:
            for p in t.pending:
                p.dealer = dealer
            t.pending.clear()

    # --- the end ----------------------------------------------------------------------------
    def finish(self) -> None:
        for t in self.tables.values():
            if t.stint is not None:
                self.table_group(t.name).dealing_s += t.stint.end - t.stint.start
            self._close_dealer_stint(t)
        for p in self.pauses:
            stop = self.until if p.end is None else p.end
            overlap = max(0.0, min(stop, self.end) - max(p.start, self.start))
            counted = self.in_period(p.start)
            if not counted and overlap <= 0:
                continue
            dealer = None if p.dealer is _UNKNOWN else p.dealer
            for g in (self.table_group(p.table), self.dealer_group(dealer)):
                g.tables.add(p.table)
                r = g.reason(p.raised, p.reason)
                g.paused_s += overlap
                r.paused_s += overlap
                if counted:
                    g.pauses += 1
                    r.pauses += 1


class _Merge:
    """Each table's events and statuses back into one ``seq`` order (two sorted streams)."""

    def __init__(self, hold_max: int = HOLD_MAX) -> None:
        self.hold_max = hold_max
        self.held: dict[str, tuple[deque[Row], deque[Row]]] = {}

    def push(self, row: Row) -> Iterator[Row]:
        """The rows that can go on now that ``row`` came (its own, or none while held)."""
        queues = self.held.get(row[0])
        if queues is None:
            queues = self.held[row[0]] = (deque(), deque())
        queues[row[1] == "status"].append(row)
        events, statuses = queues
        while events and statuses:
            yield _earlier(events, statuses).popleft()
        while len(events) + len(statuses) > self.hold_max:
            yield (events or statuses).popleft()

    def flush(self) -> Iterator[Row]:
        for events, statuses in self.held.values():
            while events and statuses:
                yield _earlier(events, statuses).popleft()
            yield from events
            yield from statuses
        self.held.clear()


def _earlier(events: deque[Row], statuses: deque[Row]) -> deque[Row]:
    """The queue whose first row comes first by ``seq`` (each holds only rows with one)."""
    return events if (events[0][2] or 0) < (statuses[0][2] or 0) else statuses


def _readable(row: Any) -> bool:
    """A row the fold takes: a read kind, a table id, a journaled ``seq`` (a presence status
    has none: it says nothing about play)."""
    _table_id, kind, seq, _at, _body = row
    return kind in READ_KINDS and isinstance(seq, int) and not isinstance(seq, bool)


def _dealer_id(v: Any) -> str | None:
    if v is None or isinstance(v, str):
        return v
    raise TypeError("a dealer is text or null")


def _may_be_paused(body: Any) -> bool:
    if isinstance(body, Mapping):
        return body.get("phase") == "paused"
    if isinstance(body, bytes):
        return _PAUSED_TEXT.encode() in body
    # A quote inside a JSON string is escaped (\"), so this text is the field itself.
    return _PAUSED_TEXT in str(body)


# --- the result ---------------------------------------------------------------------------
def _round3(x: float) -> float:
    return round(x, 3)


def _per_hour(rounds: int, seconds: float) -> float | None:
    return round(rounds * 3600.0 / seconds, 1) if seconds > 0 else None


def _group_json(g: _Group) -> dict[str, Any]:
    rounds = g.complete + g.void
    return {
        "rounds": rounds, "complete": g.complete, "void": g.void,
        "dealing_s": _round3(g.dealing_s), "rounds_per_hour": _per_hour(rounds, g.dealing_s),
        "pauses": g.pauses, "paused_s": _round3(g.paused_s), "voids": g.voids,
        "tables": sorted(g.tables),
        "reasons": [{"raised": raised, "reason": reason, "pauses": r.pauses,
                     "paused_s": _round3(r.paused_s), "voids": r.voids}
                    for (raised, reason), r in sorted(g.reasons.items())],
    }


def compute(rows: Iterable[Row], start: datetime, end: datetime,
            now: datetime | None = None, idle_s: float = IDLE_S) -> dict[str, Any]:
    """The statistics of ``[start, end)`` (aware datetimes) as JSON-able data: ``tables``
    and ``dealers`` (each with its ``reasons``), ``skipped`` rows that could not be read.
    ``now``: a pause still open counts to ``min(end, now)`` (default ``end``)."""
    if start.tzinfo is None or end.tzinfo is None:
        raise ValueError("start and end need a time zone")
    if not start < end:
        raise ValueError("start must be before end")
    s, e = start.timestamp(), end.timestamp()
    until = e if now is None else max(s, min(e, now.timestamp()))
    fold = _Fold(s, e, until, idle_s)
    merge = _Merge()

    def take(ready: Iterable[Row]) -> None:
        for table_id, kind, seq, _at, body in ready:
            try:
                fold.row(table_id, kind, seq or 0, body)  # seq: an int, by _readable
            except (ValueError, TypeError, KeyError, AttributeError, OverflowError):
                fold.skipped += 1

    for row in rows:
        try:
            readable = _readable(row)
            if readable and not isinstance(row[0], str):
                raise TypeError("table_id is not text")
        except (ValueError, TypeError):
            fold.skipped += 1
            continue
        if readable:
            take(merge.push(row))
    take(merge.flush())
    fold.finish()
    tables = [{"table": name, **_group_json(g)} for name, g in sorted(fold.by_table.items())]
    dealers = [{"dealer": name, **_group_json(g)}
               for name, g in sorted(fold.by_dealer.items(), key=lambda kv: (kv[0] is None,
                                                                             kv[0] or ""))]
    return {"from": iso(s), "to": iso(e), "until": iso(until), "idle_s": idle_s,
            "tables": tables, "dealers": dealers, "skipped": fold.skipped,
            "out_of_order": fold.out_of_order}


# --- CSV rows -----------------------------------------------------------------------------
ALL: Final = "all"
TOTALS: Final = ("rounds", "complete", "void", "dealing_s", "rounds_per_hour")
MEASURES: Final = ("pauses", "paused_s", "voids")
NO_DEALER: Final = "(none)"


def csv_header(by: str) -> list[str]:
    who = ["table"] if by == "table" else ["dealer", "tables"]
    return ["from", "to", *who, "raised", "reason", *TOTALS, *MEASURES]


def csv_rows(result: Mapping[str, Any], by: str) -> list[list[str]]:
    """The rows under ``csv_header(by)``: per table (or dealer) its totals (``raised`` and
    ``reason`` are ``all``), then one row per reason it had, with the round columns empty."""
    if by not in ("table", "dealer"):
        raise ValueError("by is table or dealer")
    period = [str(result["from"]), str(result["to"])]
    out: list[list[str]] = []
    for g in result["tables" if by == "table" else "dealers"]:
        who = [g["table"]] if by == "table" else [
            NO_DEALER if g["dealer"] is None else g["dealer"], " ".join(g["tables"])]
        out.append([*period, *who, ALL, ALL, *(_cell(g[k]) for k in TOTALS),
                    *(_cell(g[k]) for k in MEASURES)])
        for r in g["reasons"]:
            out.append([*period, *who, r["raised"], r["reason"], *("" for _ in TOTALS),
                        *(_cell(r[k]) for k in MEASURES)])
    return out


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))
    return str(v)
