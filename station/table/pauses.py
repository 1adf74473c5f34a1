"""A pause's reasons, bounded (issue 18): what every pause message, status and view repeats.

Pure: no I/O, no clock. A pause keeps the reason that caused it, the last ``LATER_SHOWN``
reasons that followed, and a count of those between that are no longer shown, so a reader
that sends a thousand distinct bad codes makes messages no longer than one that sends four.
Each reason is cut to ``REASON_MAX_CHARS``. The journal still holds every input event, so
nothing that happened is lost; only its repetition in every later message is.

The station also judges a flood of bad reads (``NoiseWatch``) from the events' own
timestamps, so a replay of the journal finds the same flood at the same event.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Final

# The first reason and the last three: the cause, and what is happening now.
LATER_SHOWN: Final = 3
# A driver's bad code is at most 64 bytes shown as \xNN (259 characters) inside its sentence
# (docs/hardware.md); 400 leaves room for the sentence and the reader's name.
REASON_MAX_CHARS: Final = 400
# So the reasons as every message, status and view joins them ("; ") are at most this long:
# the first, the count, the last LATER_SHOWN.
REASONS_MAX_CHARS: Final = (2 + LATER_SHOWN) * REASON_MAX_CHARS + 2 * (1 + LATER_SHOWN)
# Ceilings under abuse (docs/operations.md), on the bytes as journaled and sent: a pause or
# status message carries the reasons once (at most 6 bytes a character once JSON-escaped)
# beside fields of bounded size; the web view carries them in the prompt, in the reason and
# its Chinese, and in the void reasons of the last results.
PAUSE_MESSAGE_MAX_BYTES: Final = 16 * 1024
VIEW_MAX_BYTES: Final = 128 * 1024
# The count of reasons not shown, as it reads among the reasons (joined with "; ").
MORE_SUFFIX: Final = " more not shown"
# Cards drawn while paused are listed in one reason; past this many, only the last ones.
DRAWN_SHOWN: Final = 10
# A reader that sends more than NOISE_READS codes that are not cards within NOISE_WINDOW_S
# (the events' own clock) is a device fault, reported once: no dealer scans that fast, and a
# scanner with a bad cable or the wrong baud rate sends hundreds a second. The flood ends
# when the reader has sent no bad code for NOISE_QUIET_S: longer than the serial driver's
# window (drivers.noisegate), which sums a flood up in one code a second.
NOISE_READS: Final = 20
NOISE_WINDOW_S: Final = 1.0
NOISE_QUIET_S: Final = 5.0


# The kinds of pause reason, by what the station's own words begin with (or hold): metrics
# count pauses by kind (station_pauses_total) and the pit's statistics group them by it, since
# a reason holds card codes and reader names. In order: the first that matches.
REASON_KINDS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    # First: the dealer's note is free text that may hold any other kind's words.
    ("dealer", re.compile(r"^held by the dealer: ")),
    ("another_pack", re.compile(r"^card from another pack: ")),
    ("repeated_shoe", re.compile(r"^repeated shoe: ")),
    ("unreadable", re.compile(r"^unreadable code ")),
    ("not_due", re.compile(r"^card not due")),
    ("beyond_shoe", re.compile(r" would be copy \d+ in a ")),
    ("device_lost", re.compile(r" lost \(")),
    ("restart", re.compile(r"^station restarted")),
    ("cut_card", re.compile(r"cut card")),
    ("noise", re.compile(r" sends noise: ")),
)


def reason_kind(reason: str) -> str:
    """The kind of one reason (not of several joined with ``; ``): a name of
    ``REASON_KINDS``, or ``other``."""
    for kind, pattern in REASON_KINDS:
        if pattern.search(reason):
            return kind
    return "other"


def more_reason(n: int) -> str:
    return f"{n}{MORE_SUFFIX}"


def is_more_reason(reason: str) -> bool:
    """The count of reasons not shown, not a reason itself (metrics leave it out)."""
    return reason.endswith(MORE_SUFFIX) and reason[: -len(MORE_SUFFIX)].isdigit()


def cut(reason: str) -> str:
    if len(reason) <= REASON_MAX_CHARS:
        return reason
    return reason[: REASON_MAX_CHARS - 3] + "..."


@dataclass(slots=True)
class PauseReasons:
    """The reasons of the pause in progress; ``shown`` is what everything repeats."""

    first: str | None = None
    later: list[str] = field(default_factory=list)  # at most LATER_SHOWN, oldest first
    more: int = 0  # reasons that followed the first and scrolled out of ``later``

    def shown(self) -> list[str]:
        if self.first is None:
            return list(self.later)
        head = [self.first, more_reason(self.more)] if self.more else [self.first]
        return [*head, *self.later]

    def start(self, reason: str) -> None:
        self.first, self.later, self.more = cut(reason), [], 0

    def clear(self) -> None:
        self.first, self.later, self.more = None, [], 0

    def add(self, reason: str) -> bool:
        """Add ``reason`` unless it is shown already; True if the reasons changed."""
        reason = cut(reason)
        if reason == self.first or reason in self.later:
            return False
        if self.first is None:
            self.first = reason
            return True
        self.later.append(reason)
        if len(self.later) > LATER_SHOWN:
            del self.later[0]
            self.more += 1
        return True

    def drop_prefixed(self, prefix: str) -> None:
        """Forget the shown reasons starting with ``prefix`` (one about to be restated)."""
        if self.first is not None and self.first.startswith(prefix):
            self.first = self.later.pop(0) if self.later else None
        self.later = [r for r in self.later if not r.startswith(prefix)]


@dataclass(slots=True)
class _Flood:
    times: deque[float] = field(default_factory=lambda: deque(maxlen=NOISE_READS + 1))
    noisy: bool = False
    count: int = 0  # bad codes since the flood was reported
    last: float = 0.0


class NoiseWatch:
    """Counts each reader's bad codes by the events' timestamps and says when they become a
    flood. Memory: one small record per reader that has sent a bad code recently."""

    def __init__(self) -> None:
        # Readers with a bad code in the window or a flood going on; empty nearly always, so
        # the station tests it on every event for the price of an attribute read.
        self.sources: dict[str, _Flood] = {}

    def bad(self, source: str, ts: float) -> str:
        """A bad code from ``source`` at ``ts``: ``"read"`` (judge it as one), ``"flood"``
        (it starts a flood: report it once) or ``"swallow"`` (inside a reported flood)."""
        f = self.sources.get(source)
        if f is None:
            f = self.sources[source] = _Flood()
        if f.noisy:
            f.count += 1
            f.last = ts
            return "swallow"
        f.times.append(ts)
        # abs(): a wall clock stepped back must not hide a flood nor invent one.
        if len(f.times) > NOISE_READS and abs(ts - f.times[0]) <= NOISE_WINDOW_S:
            f.noisy, f.count, f.last = True, len(f.times), ts
            f.times.clear()
            return "flood"
        return "read"

    def ended(self, ts: float) -> list[tuple[str, int]]:
        """The floods over at ``ts`` (no bad code for ``NOISE_QUIET_S``): (reader, bad codes
        in it). Other readers are forgotten once their last bad code is out of the window, so
        memory does not grow."""
        over: list[tuple[str, int]] = []
        for source, f in list(self.sources.items()):
            last = f.last if f.noisy else f.times[-1]
            if abs(ts - last) > (NOISE_QUIET_S if f.noisy else NOISE_WINDOW_S):
                if f.noisy:
                    over.append((source, f.count))
                del self.sources[source]
        return over


def noise_reason(source: str) -> str:
    return f"{source} sends noise: more than {NOISE_READS} bad codes within {NOISE_WINDOW_S:g} s"
