"""Shoe integrity (issue 11): a report at every shoe's end, and the repeated-shoe alarm.

Pure: no I/O, no clock (times come from the events). The station keeps one ``ShoeIntegrity``:
a ``ShoeLog`` for the shoe in play (what ``ShoeCounts`` does not hold: when it started, its
rounds by status, its pauses with their reasons) and a ``RepeatWatch`` across shoes.

The repeated-shoe measure. A shoe dealt twice in the same order is a prearranged shoe, so the
first ``cards`` (N, 30) cards after the burn of every shoe are kept for the last ``history``
(H, 100) shoes. When a shoe's N-th card after the burn is read, it is compared with each kept
shoe by the length of the longest common subsequence (LCS) of the two N-card sequences, cards
compared by rank and suit. LCS is the natural "in order" measure: one card moved elsewhere,
two cards swapped or one card replaced costs one point, not a whole shifted tail as a
position-by-position comparison would. The alarm fires at a score of ``threshold`` (20 of 30)
or more. An LCS can never exceed the size of the multiset intersection of the two sequences
(a common subsequence is made of common cards), and that bound is counted for every kept
shoe at once as the cards come (a few integer operations a card, ``RepeatWatch``), so the LCS
itself is computed only for the rare kept shoe that shares ``threshold`` cards or more; it is
computed bit-parallel (one pass over the N cards with a few integer operations each, Hyyro's
form of the Allison-Dix algorithm).

How unlikely a false alarm is, for two freshly shuffled 8-deck shoes: a common subsequence of
length 20 pairs 20 positions of one shoe with 20 of the other, in order; there are at most
C(30,20)^2 = 9.0e14 such pairings, and each card of the second shoe, whatever the others are,
is a given card with probability at most 8/376 (8 copies among at least 416 - 11 burned - 29
other cards unseen). So P(score >= 20) <= 9.0e14 x (8/376)^20 = 3.3e-19 per comparison: a table
dealing 30 shoes a day, each compared with 100, would see one false alarm in about 2.8e12
years. docs/integrity.md has the figures and the scores fresh shoes actually reach.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from math import comb
from typing import TYPE_CHECKING, Any, Final

from station.game.cards import ALL_CARDS, DECK_SIZE, RANKS, Card
from station.game.shoe import ShoeCounts
from station.table.outputs import Announced, Output, Published
from station.table.procedures import penetration

if TYPE_CHECKING:
    from drivers.events import InputEvent
    from station.table.machine import Dealing

REPEAT_CARDS: Final = 30
REPEAT_THRESHOLD: Final = 20
REPEAT_HISTORY: Final = 100
REPORT: Final = "shoe_report"  # the ``type`` of the report's ``Announced`` message

REPEAT_ACTION: Final = "stop dealing; the supervisor checks the shoe"
_BURN_STATES: Final = frozenset({"burn_indicator", "burning"})
# A card read can only matter to the log in these states (a pause, the shoe's end), when it
# has outputs (a round) or completes the watch's cards: the station skips ``after`` otherwise.
CARD_STATES: Final = frozenset({"paused", "shoe_closed"})


def false_alarm_bound(cards: int = REPEAT_CARDS, threshold: int = REPEAT_THRESHOLD,
                      decks: int = 8) -> float:
    """An upper bound on the chance that two independently shuffled shoes score
    ``threshold`` or more (the argument in this module's docstring)."""
    unseen = decks * DECK_SIZE - 11 - (cards - 1)  # 11: the longest burn (a ten, then 10)
    return float(comb(cards, threshold) ** 2) * (decks / unseen) ** threshold


# --- the report ---------------------------------------------------------------------------
@dataclass(slots=True)
class Pause:
    """One pause of the shoe: when, every reason given while it lasted, and how it ended."""

    ts: float
    reasons: list[str]
    cleared: str | None = None  # "resume" or "void"; None while paused or at the shoe's end
    by: str | None = None
    raised: tuple[str, str, str | None] | None = None  # the dealer's own: by, code, note


@dataclass(slots=True)
class ShoeLog:
    """What the station tracks for the report beyond ``ShoeCounts``: updated on a shoe's
    start, a pause and a published round, never per card."""

    shoe_id: str
    started_ts: float
    rounds: dict[str, int] = field(default_factory=dict)  # by record status
    pauses: list[Pause] = field(default_factory=list)
    reported: bool = False
    # ``iso(started_ts)``, written when the shoe starts (a command), so the card that ends
    # the shoe formats one time, not two; "" for a log built without it.
    started: str = ""
    shuffle: dict[str, Any] | None = None  # the checked shuffle (docs/rules.md), if any


def iso(ts: float) -> str:
    """UTC, milliseconds, as the upstream envelope writes times."""
    w = datetime.fromtimestamp(round(ts, 3), UTC)
    # Not strftime, nor isoformat(timespec=...): CPython keeps objects of its own in both
    # (tests/core/test_memory.py).
    return (f"{w.year:04d}-{w.month:02d}-{w.day:02d}T{w.hour:02d}:{w.minute:02d}:"
            f"{w.second:02d}.{w.microsecond // 1000:03d}Z")


def shoe_report(log: ShoeLog, counts: ShoeCounts, ended_ts: float, *,
                on_table: int = 0) -> dict[str, Any]:
    """The report of one shoe at its end.

    ``on_table``: cards of a round still open (a new shoe started over an unfinished one).
    Cards out of the shoe add up: ``dealt + burned + discarded + set_aside + on_table + left
    == cards``, where ``dealt`` are the cards of complete rounds, ``discarded`` those of void
    rounds and strays the supervisor cleared, ``set_aside`` strays still awaiting the
    supervisor (and a held re-scan). ``anomalies`` lists every card seen more often than the
    shoe holds it: the station pauses before counting such a card, so it is always empty
    unless that promise broke, and it is reported rather than assumed.
    """
    full = counts.decks * 4  # each rank: one card of each of 4 suits per deck
    seen_by_index = counts.counts
    # A card's index is suit * 13 + rank (station.game.cards): a rank's four suits are 13 apart.
    # Built on the shoe's last card read, so without a loop over the 52 cards.
    per_rank = {r: seen_by_index[i] + seen_by_index[i + 13] + seen_by_index[i + 26]
                + seen_by_index[i + 39] for i, r in enumerate(RANKS)}
    anomalies = []
    if max(seen_by_index) > counts.decks:
        for index, seen in enumerate(seen_by_index):
            if seen > counts.decks:
                anomalies.append({"card": ALL_CARDS[index].code, "seen": seen,
                                  "full": counts.decks})
    drawn = sum(seen_by_index)
    return {
        "type": REPORT,
        "shoe": log.shoe_id,
        "key": f"{log.shoe_id}:{REPORT}",
        "decks": counts.decks,
        "cards": counts.size,
        "dealt": counts.dealt,
        "burned": len(counts.burned),
        "discarded": len(counts.discarded),
        "set_aside": len(counts.stray) + len(counts.held),
        "on_table": on_table,
        "left": counts.size - drawn,
        "ranks": {r: {"seen": n, "full": full, "left": full - n} for r, n in per_rank.items()},
        "anomalies": anomalies,
        "rounds": {"complete": log.rounds.get("complete", 0), "void": log.rounds.get("void", 0),
                   **{k: v for k, v in sorted(log.rounds.items())
                      if k not in ("complete", "void")}},
        "pauses": [_pause_json(p) for p in log.pauses],
        "started": log.started or iso(log.started_ts),
        "ended": iso(ended_ts),
        "duration_s": round(ended_ts - log.started_ts, 3),
        # Table procedures (docs/rules.md), only when there is something to say.
        **({"shuffle": log.shuffle} if log.shuffle is not None else {}),
        **({"cut_card_at": counts.cut_card_at,
            "penetration": penetration(counts.cut_card_at, counts.decks)}
           if counts.cut_card_at is not None else {}),
    }


def _pause_json(p: Pause) -> dict[str, Any]:
    out: dict[str, Any] = {"ts": iso(p.ts), "reasons": list(p.reasons), "cleared": p.cleared,
                           "by": p.by}
    if p.raised is not None:  # the dealer's own pause (docs/rules.md): who raised it and why
        out["raised_by"], out["code"] = p.raised[0], p.raised[1]
        if p.raised[2] is not None:
            out["note"] = p.raised[2]
    return out


# --- the repeated-shoe alarm --------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RepeatMatch:
    """The earlier shoe a new shoe repeats, and the score (LCS length of ``cards``)."""

    shoe: str
    score: int
    cards: int

    def reason(self, shoe: str, name_it: bool = True) -> str:
        """``name_it`` False on a face-down table (squeeze, VIP): the earlier shoe's cards
        are known upstream, so naming it would tell the cards still face down."""
        earlier = f"shoe {self.shoe}" if name_it else "an earlier shoe (named in the journal)"
        return (f"repeated shoe: the first {self.cards} cards after the burn of {shoe} match "
                f"{earlier} in order ({self.score} of {self.cards})")


@dataclass(frozen=True, slots=True)
class _Kept:
    shoe: str
    common: int  # the cards as a set of (card, n-th copy) bits: the multiset, for the bound
    masks: tuple[int, ...]  # per card index, the positions it holds (bit i = position i)
    slot: int  # its bit in the watch's index (below)
    # Its (card, n-th copy) places, whose index entries hold ``slot``: an array, one
    # allocation of a fixed size (a tuple would hold an int object for every place over 256).
    places: array[int]


def multiset_bits(seq: Sequence[int], cards: int) -> int:
    """``seq`` (card indexes) as an integer with one bit per (card, n-th copy): the popcount
    of two of these ANDed is the size of the multisets' intersection."""
    bits = 0
    for place in copy_places(seq, cards):
        bits |= 1 << place
    return bits


def copy_places(seq: Sequence[int], cards: int) -> tuple[int, ...]:
    """The (card, n-th copy) place of each card of ``seq``: ``card * cards + n``."""
    seen = [0] * DECK_SIZE
    out = []
    for c in seq:
        out.append(c * cards + seen[c])
        seen[c] += 1
    return tuple(out)


def position_masks(seq: Sequence[int]) -> tuple[int, ...]:
    masks = [0] * DECK_SIZE
    for i, c in enumerate(seq):
        masks[c] |= 1 << i
    return tuple(masks)


def lcs_length(masks: Sequence[int], n: int, other: Sequence[int]) -> int:
    """The LCS length of the sequence whose ``position_masks`` are ``masks`` (length ``n``)
    and ``other``: each card of ``other`` updates a bit vector of ``n`` bits in a few integer
    operations; the LCS length is the number of bits cleared (Hyyro 2004)."""
    full = (1 << n) - 1
    v = full
    for c in other:
        u = v & masks[c]
        v = ((v + u) | (v - u)) & full
    return n - v.bit_count()


class RepeatWatch:
    """The first ``cards`` cards after the burn of the last ``history`` shoes.

    ``begin`` a shoe, then ``add`` its cards after the burn in draw order; the ``cards``-th
    returns the best ``RepeatMatch`` (the highest score, the most recent on a tie) with a
    score of ``threshold`` or more, else None, and the shoe joins the history either way. A
    shoe that ends before its ``cards``-th card is neither compared nor kept.

    The bound (the size of the multiset intersection with each kept shoe) is counted as the
    cards come, for every kept shoe at once, so the ``cards``-th card does not pay for it:
    comparing one shoe with each of 100 kept ones there cost a card read about 50 us, the
    slowest card read of a shoe but the report. Each kept shoe has a slot, a bit; the index
    maps each (card, n-th copy) place to the slots of the kept shoes holding it; one counter
    per slot lives in bit-sliced form (``_planes[i]`` holds bit i of every counter), so a card
    adds one to every counter it matches with a few integer operations, and the slots whose
    count reached ``threshold`` come out of the planes at the ``cards``-th card. ``compare``
    is the same bound taken shoe by shoe (``tests/core/test_integrity.py`` holds the two equal).
    """

    def __init__(self, cards: int = REPEAT_CARDS, threshold: int = REPEAT_THRESHOLD,
                 history: int = REPEAT_HISTORY) -> None:
        if not 1 <= threshold <= cards or history < 1:
            raise ValueError(f"threshold 1..cards and history >= 1, got cards={cards}, "
                             f"threshold={threshold}, history={history}")
        self.cards = cards
        self.threshold = threshold
        self.history = history
        # A list, not a deque(maxlen=...): a deque's blocks come and go as it turns, a list
        # of H entries stays one allocation (tests/core/test_memory.py measures what is kept).
        self._kept: list[_Kept] = []
        # Place -> the slots of the kept shoes holding it, as an int of H bits.
        self._index = [0] * (DECK_SIZE * cards)
        self._planes = [0] * cards.bit_length()  # the per-slot counters, bit-sliced
        self._copies = [0] * DECK_SIZE  # copies of each card in the shoe's cards so far
        # The shoe that reached its N-th card joins the index at the next ``begin`` (or when
        # ``kept`` is read), not on the card read itself.
        self._pending: tuple[str, tuple[int, ...]] | None = None
        self.collecting = False  # read on the hot path: True only until the N-th card
        self._shoe = ""
        self._seq: list[int] = []
        self.lcs_computed = 0  # how many comparisons the bound did not settle (benchmark)

    @property
    def kept(self) -> tuple[_Kept, ...]:
        """The kept shoes, oldest first (a copy: the index follows the watch's own list)."""
        self._flush()
        return tuple(self._kept)

    @property
    def collected(self) -> tuple[int, ...]:
        """The card indexes collected so far from the shoe in play (for tests and tools)."""
        return tuple(self._seq)

    def begin(self, shoe: str) -> None:
        """A new shoe: what was collected of an unfinished one is dropped."""
        self._flush()
        self._shoe = shoe
        self._seq = []
        self._planes = [0] * len(self._planes)
        self._copies = [0] * DECK_SIZE
        self.collecting = True

    def add(self, card_index: int) -> RepeatMatch | None:
        if not self.collecting:
            return None  # no shoe begun, or its N cards are in: the station stops adding
        seq = self._seq
        seq.append(card_index)
        n = self._copies[card_index]
        self._copies[card_index] = n + 1
        carry = self._index[card_index * self.cards + n]
        if carry:
            # Add one to the counter of every slot in ``carry``: a ripple-carry adder over
            # the planes, which stops as soon as no slot carries.
            planes = self._planes
            for i, plane in enumerate(planes):
                planes[i] = plane ^ carry
                carry &= plane
                if not carry:
                    break
        if len(seq) < self.cards:
            return None
        self.collecting = False
        found = None
        candidates = self._at_least(self.threshold)
        if candidates:
            found = self._best((k for k in self._kept if candidates >> k.slot & 1), seq)
        self._pending = (self._shoe, tuple(seq))
        return found

    def compare(self, seq: Sequence[int]) -> RepeatMatch | None:
        """The best kept shoe scoring ``threshold`` or more against ``seq`` (N cards)."""
        bits = multiset_bits(seq, self.cards)
        threshold = self.threshold
        # The bound: a common subsequence is made of common cards.
        return self._best((k for k in self.kept if (k.common & bits).bit_count() >= threshold),
                          seq)

    def _best(self, candidates: Iterable[_Kept], seq: Sequence[int]) -> RepeatMatch | None:
        """The best of ``candidates`` (oldest first) by LCS: the most recent on a tie."""
        best: RepeatMatch | None = None
        for kept in candidates:
            self.lcs_computed += 1
            score = lcs_length(kept.masks, self.cards, seq)
            if score >= self.threshold and (best is None or score >= best.score):
                best = RepeatMatch(kept.shoe, score, self.cards)
        return best

    def _at_least(self, threshold: int) -> int:
        """The slots whose counter is ``threshold`` or more, from the bit-sliced planes."""
        above, equal = 0, (1 << self.history) - 1
        for i in range(len(self._planes) - 1, -1, -1):
            plane = self._planes[i]
            if threshold >> i & 1:
                equal &= plane
            else:
                above |= equal & plane
                equal &= ~plane
        return above | equal

    def _flush(self) -> None:
        """The shoe that reached its N-th card joins the history and the index; the oldest
        kept shoe leaves both when the history is full, giving the new one its slot."""
        if self._pending is None:
            return
        shoe, seq = self._pending
        self._pending = None
        index = self._index
        if len(self._kept) < self.history:
            slot = len(self._kept)
        else:
            old = self._kept.pop(0)
            slot = old.slot
            clear = ~(1 << slot)
            for place in old.places:
                index[place] &= clear
        places = array("I", copy_places(seq, self.cards))
        bit = 1 << slot
        for place in places:
            index[place] |= bit
        self._kept.append(_Kept(shoe, multiset_bits(seq, self.cards), position_masks(seq),
                                slot, places))


# --- what the station keeps ---------------------------------------------------------------
class ShoeIntegrity:
    """The station's integrity state: the log of the shoe in play and the repeat watch.

    The station calls ``card`` for each card it counts while ``watch.collecting`` (cheap:
    a flag on the hot path) and ``after`` after every event but a card read that changed
    nothing here (no output, not in ``CARD_STATES``, no ``match``): about nine events in ten,
    each of which would cost ``after`` some 0.2 us. Everything here follows from the events,
    so a replay of the journal rebuilds it exactly (the history included).
    """

    def __init__(self, cards: int = REPEAT_CARDS, threshold: int = REPEAT_THRESHOLD,
                 history: int = REPEAT_HISTORY) -> None:
        self.watch = RepeatWatch(cards, threshold, history)
        self.log: ShoeLog | None = None
        self._counts: ShoeCounts | None = None
        self._pause: Pause | None = None
        self.match: RepeatMatch | None = None  # found by ``card``; the station pauses for it

    def card(self, card: Card, d: Dealing) -> None:
        """``card`` was counted from the shoe; burn cards (and cards drawn while the burn is
        paused) are not after the burn."""
        state = d.state
        if state in _BURN_STATES or (state == "paused" and d.paused_from is not None
                                     and d.paused_from.value in _BURN_STATES):
            return
        found = self.watch.add(card.index)
        if found is not None:
            self.match = found  # paused in ``after``, once the card is dealt as due

    def after(self, event: InputEvent, d: Dealing, out: list[Output]) -> None:
        """Bring the log up to date after ``event``; append a report to ``out`` when the
        shoe ended, and pause the table when the watch found a repeat."""
        if d.shoe is not self._counts:
            self._new_shoe(event, d, out)
        log = self.log
        if log is None:
            return
        state = d.state  # before the alarm's pause: the card may also have ended the shoe
        if self.match is not None:
            found, self.match = self.match, None
            d.fault(found.reason(log.shoe_id, name_it=not d.face_down), REPEAT_ACTION)
        if d.state == "paused" or self._pause is not None:
            self._track_pause(event, d, log)
        if out:
            for o in out:
                if type(o) is Published:
                    status = o.record["status"]
                    log.rounds[status] = log.rounds.get(status, 0) + 1
        if state == "shoe_closed" and not log.reported:
            self._report(event.ts, d, out)

    def _new_shoe(self, event: InputEvent, d: Dealing, out: list[Output]) -> None:
        if self.log is not None and not self.log.reported:
            self._report(event.ts, d, out)  # a new shoe over one that never closed
        self._counts = d.shoe
        self._pause = None
        if d.shoe is None:
            self.log = None
            return
        try:
            started = iso(event.ts)
        except (OverflowError, ValueError, OSError):
            started = ""  # a clock beyond the calendar (the shoe id says "badtime"): as before
        self.log = ShoeLog(d.shoe.shoe_id, event.ts, started=started, shuffle=d.shuffle)
        self.watch.begin(d.shoe.shoe_id)

    def _track_pause(self, event: InputEvent, d: Dealing, log: ShoeLog) -> None:
        if d.state == "paused":
            if self._pause is None:
                self._pause = Pause(event.ts, list(d.pause_reasons), raised=d.raised)
                log.pauses.append(self._pause)
            elif self._pause.reasons != d.pause_reasons:
                self._pause.reasons = list(d.pause_reasons)
            return
        pause, self._pause = self._pause, None
        if pause is not None:
            action = getattr(event, "action", None)
            pause.cleared = action if action in ("resume", "void") else None
            pause.by = getattr(event, "actor", None)

    def _report(self, ts: float, d: Dealing, out: list[Output]) -> None:
        log, counts = self.log, self._counts
        assert log is not None and counts is not None
        log.reported = True
        self.watch.collecting = False  # a shoe that ended before its N-th card is not kept
        if counts is d.shoe:
            on_table = len(d.player) + len(d.banker) if d.round_open else 0
        else:
            # A new shoe began over this one: the machine has forgotten its round, so what is
            # not classed is what was on the table.
            on_table = sum(counts.counts) - counts.dealt - len(counts.burned) - len(
                counts.discarded) - len(counts.stray) - len(counts.held)
        out.append(Announced(shoe_report(log, counts, ts, on_table=on_table)))
