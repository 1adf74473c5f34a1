"""Video timecodes: a journal's published messages as a WebVTT or SubRip track that a
surveillance player overlays on the table's video (docs/journal.md, Video timecodes).

Each cue is built from the messages a journal record published (its outbox rows on the
events topic), never from the input event itself: a face-down card's value then appears
exactly when the station published it (its ``reveal``), as on the wire (docs/modes.md). A
cue starts at the record's ``wall_ts``. Building the cues is pure; the I/O is the caller's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

HOLD_MS = 5000  # a cue stays until the next one, or this long at most
TEXT_MAX = 120  # characters of a reason or detail shown; the journal has the whole text
SRT_HOURS_MAX = 99  # SubRip's hours field has two digits
SUITS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
DOWN = "(down)"
# Kinds left out: status (the state, not an event), shoe_report (the shoe's summary, its
# figures are in the journal), command_refused (a refused command changed nothing) and
# config_changed (the station's settings at a start, not the table's play).
SHOWN = frozenset({"shoe_started", "betting_open", "betting_closed", "card", "reveal", "round",
                   "pause", "resume", "shoe_ended", "dealer", "alert"})


@dataclass(frozen=True, slots=True)
class Cue:
    start_ms: int  # milliseconds from the track's base
    end_ms: int
    seq: int  # the journal record whose messages it shows (the first, when several merge)
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Published:
    """One journal record's shown messages, in outbox order."""

    seq: int
    wall_ts: float
    messages: tuple[dict[str, Any], ...]


@dataclass(slots=True)
class Track:
    cues: list[Cue]
    base_ms: int
    notes: list[str] = field(default_factory=list)  # for the operator, on stderr
    shoes: list[str] = field(default_factory=list)  # every shoe id met, in order


def published(seq: int, wall_ts: float, rows: Iterable[tuple[str, bytes]]) -> Published:
    """The record's messages on the events topic that a cue shows, decoded."""
    shown = []
    for topic, payload in rows:
        if topic != "events":
            continue
        try:
            message = json.loads(payload)
        except ValueError:  # not what the station writes; the chain vouches only for bytes
            continue
        if isinstance(message, dict) and isinstance(message.get("kind"), str) \
                and message["kind"] in SHOWN:
            shown.append(message)
    return Published(seq, wall_ts, tuple(shown))


def card_text(code: object) -> str:
    """``4S`` -> ``4♠``, ``TD`` -> ``10♦``; a face-down (null) card -> ``(down)``."""
    if not isinstance(code, str) or len(code) != 2:
        return DOWN
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUITS.get(code[1], code[1])


def short(text: object) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= TEXT_MAX else flat[: TEXT_MAX - 3] + "..."


class _Table:
    """What the track has shown of the round in progress: each hand's cards by position."""

    def __init__(self) -> None:
        self.round: tuple[object, object] | None = None
        self.hands: dict[str, dict[int, str]] = {"player": {}, "banker": {}}

    def at(self, m: dict[str, Any]) -> None:
        key = (m.get("shoe"), m.get("round"))
        if key != self.round:
            self.round, self.hands = key, {"player": {}, "banker": {}}

    def line(self, n: object) -> str:
        def hand(name: str) -> str:
            cards = self.hands[name]
            return " ".join(cards[p] for p in sorted(cards)) or "-"
        return f"R{n} P: {hand('player')} | B: {hand('banker')}"


def _text(m: dict[str, Any], table: _Table) -> str | None:
    kind, n = m["kind"], m.get("round")
    if kind == "shoe_started":
        return f"SHOE {m.get('shoe')} started, {m.get('decks')} decks"
    if kind == "shoe_ended":
        return f"SHOE ENDED: {m.get('reason')}, {m.get('rounds')} rounds"
    if kind == "betting_open":
        table.at(m)
        return f"R{n} betting open" + (" (skipped)" if m.get("skipped") else "")
    if kind == "betting_closed":
        return f"R{n} betting closed"
    if kind == "card":
        table.at(m)
        cards = table.hands.setdefault(str(m.get("hand")), {})
        cards[int(m.get("position") or 0)] = card_text(m.get("card"))
        return table.line(n)
    if kind == "reveal":
        table.at(m)
        hand = str(m.get("hand"))
        for c in m.get("cards") or []:
            table.hands.setdefault(hand, {})[int(c.get("position") or 0)] = card_text(c.get("card"))
        return f"{table.line(n)} ({hand[:1].upper()} revealed by {short(m.get('by'))})"
    if kind == "round":
        return _round(m)
    if kind == "pause":
        return f"PAUSED: {short(m.get('reason'))}"
    if kind == "resume":
        return f"RESUMED by {short(m.get('by'))}"
    if kind == "dealer":
        return f"DEALER {m.get('dealer') or 'none'} ({m.get('action')})"
    if kind == "alert":
        return f"ALERT {m.get('alert')}: {short(m.get('detail'))}"
    return None


def _shown(m: dict[str, Any], table: _Table, seq: int, notes: list[str]) -> str | None:
    try:
        return _text(m, table)
    except (TypeError, ValueError, AttributeError):
        # A message the station would not write (a field of the wrong type): left out, said.
        notes.append(f"record {seq}: a {m['kind']} message with fields of the wrong type "
                     "left out")
        return None


def _round(m: dict[str, Any]) -> str:
    n = m.get("round")
    if m.get("status") == "void":
        return f"R{n} VOID: {short(m.get('void_reason'))}"
    player = " ".join(card_text(c) for c in m.get("player") or []) or "-"
    banker = " ".join(card_text(c) for c in m.get("banker") or []) or "-"
    winner = str(m.get("winner")).upper()
    result = f"{winner} WINS" if winner in ("PLAYER", "BANKER") else winner
    return (f"R{n} P: {player} | B: {banker} = {result} "
            f"{m.get('player_total')}-{m.get('banker_total')}")


def shoe_of(m: dict[str, Any]) -> str | None:
    shoe = m.get("shoe")
    return shoe if isinstance(shoe, str) else None


def build(records: Iterable[Published], *, shoe: str | None = None,
          base_s: float | None = None) -> Track:
    """The track's cues. ``shoe``: only that shoe's records, from its ``shoe_started`` to
    its ``shoe_ended`` (a record naming no shoe in between, a dealer change, is kept).
    ``base_s``: the wall time of 00:00:00.000 (default: midnight UTC of the first cue's
    day, so that a cue's time is the UTC time of day the station journaled it)."""
    table = _Table()
    notes: list[str] = []
    shoes: list[str] = []
    rows: list[tuple[int, int, list[str]]] = []  # (wall ms, seq, lines)
    inside = shoe is None
    for rec in records:
        names = [s for s in (shoe_of(m) for m in rec.messages) if s]
        for s in names:
            if s not in shoes:
                shoes.append(s)
        if shoe is not None:
            if names and shoe in names:
                inside = True
            elif names or not inside:
                inside = False
                continue
        texts = [(m["kind"], _shown(m, table, rec.seq, notes)) for m in rec.messages]
        ended = any(kind == "round" for kind, _ in texts)
        # The card that ended the round: the round's line shows the same cards, and more.
        lines = [t for kind, t in texts if t and not (ended and kind == "card")]
        if shoe is not None and any(m["kind"] == "shoe_ended" and shoe_of(m) == shoe
                                    for m in rec.messages):
            inside = False
        if lines:
            rows.append((round(rec.wall_ts * 1000), rec.seq, lines))
    if not rows:
        return Track([], 0 if base_s is None else round(base_s * 1000), notes, shoes)
    if base_s is None:
        first = datetime.fromtimestamp(rows[0][0] / 1000, UTC)
        base_ms = int(first.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()) * 1000
    else:
        base_ms = round(base_s * 1000)
    return Track(_cues(rows, base_ms, notes), base_ms, notes, shoes)


def _cues(rows: list[tuple[int, int, list[str]]], base_ms: int, notes: list[str]) -> list[Cue]:
    # Records journaled in the same millisecond share one cue (a start must be later than
    # the one before for the next cue to end it). A wall clock set back makes a record's
    # time earlier than the one before: it joins the previous cue, so the track stays in
    # order, and a note says so. Records before the base are left out, with a note.
    groups: list[tuple[int, int, list[str]]] = []
    before = 0
    for wall_ms, seq, lines in rows:
        if wall_ms < base_ms:
            before += 1
            continue
        if groups and wall_ms <= groups[-1][0]:
            if wall_ms < groups[-1][0]:
                notes.append(f"record {seq}: its wall clock time is "
                             f"{(groups[-1][0] - wall_ms) / 1000:.3f} s before the previous "
                             "record's (the clock was set back); shown with the previous cue")
            groups[-1][2].extend(lines)
            continue
        groups.append((wall_ms, seq, list(lines)))
    if before:
        notes.append(f"{before} record(s) journaled before --video-start left out")
    cues = []
    for i, (wall_ms, seq, lines) in enumerate(groups):
        end = wall_ms + HOLD_MS
        if i + 1 < len(groups):
            end = min(end, groups[i + 1][0])
        cues.append(Cue(wall_ms - base_ms, end - base_ms, seq, tuple(lines)))
    return cues


def timestamp(ms: int, sep: str) -> str:
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, rest = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{rest:03d}"


def _clean(line: str) -> str:
    # A cue's text may hold neither "-->" nor a line break (either would end the cue).
    return " ".join(line.split()).replace("-->", "->")


def vtt(track: Track, title: str) -> Iterator[str]:
    """The WebVTT file, line by line (each with its newline)."""
    base = datetime.fromtimestamp(track.base_ms / 1000, UTC).isoformat(timespec="milliseconds")
    yield f"WEBVTT - {_clean(title)}\n\n"
    yield (f"NOTE 00:00:00.000 is {base.replace('+00:00', 'Z')}; each cue starts at the "
           "wall_ts of the journal record that published it, its id is that record's seq\n\n")
    for cue in track.cues:
        yield f"seq {cue.seq}\n"
        yield f"{timestamp(cue.start_ms, '.')} --> {timestamp(cue.end_ms, '.')}\n"
        for line in cue.lines:
            yield _clean(line).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            yield "\n"
        yield "\n"


def srt(track: Track) -> Iterator[str]:
    """The SubRip file, line by line. Raises ``ValueError`` past 99 hours from the base."""
    for n, cue in enumerate(track.cues, start=1):
        if cue.end_ms >= (SRT_HOURS_MAX + 1) * 3_600_000:
            raise ValueError(f"record {cue.seq} is more than {SRT_HOURS_MAX} hours after the "
                             "track's start, past what SubRip can write")
        yield f"{n}\n{timestamp(cue.start_ms, ',')} --> {timestamp(cue.end_ms, ',')}\n"
        for line in cue.lines:
            yield _clean(line) + "\n"
        yield "\n"
