"""Per-source limits for requests a station refuses (issue 18): pure, the clock passed in.

``Budget`` is a token bucket per source: a request that will cost the station work takes a
token first, and one the station applies gives it back, so a source whose requests are taken
is never limited and one whose requests are refused is held to ``rate_per_s`` after a
``burst``. ``Tally`` decides which refusals are journaled in full (the first ``full`` of a
source in each ``interval_s``) and sums up the rest as one line per source and interval.
Both keep at most ``max_sources`` sources, so a flood of new sources costs bounded memory.
``Every`` says when a repeated log line is due: once per interval, with how many were not.

Used by the web API (station/web/server.py); a command path from upstream can take the same
two objects, keyed by its own idea of a source. Neither is thread-safe: each is owned by one
event loop or guarded by its caller.
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict
from dataclasses import dataclass, field


@dataclass
class _Bucket:
    tokens: float
    at: float


class Budget:
    """A token bucket per source. ``take`` before the work, ``give_back`` if it was taken."""

    def __init__(self, *, burst: int, rate_per_s: float, max_sources: int = 1024) -> None:
        if burst < 1 or rate_per_s <= 0 or max_sources < 1:
            raise ValueError("a budget needs burst >= 1, rate_per_s > 0, max_sources >= 1")
        self.burst = burst
        self.rate_per_s = rate_per_s
        self.max_sources = max_sources
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def _bucket(self, source: str, now: float) -> _Bucket:
        b = self._buckets.get(source)
        if b is None:
            b = _Bucket(float(self.burst), now)
            self._buckets[source] = b
            while len(self._buckets) > self.max_sources:
                # The source heard from longest ago goes; it comes back with a full bucket,
                # which is at most one burst more for a source that waited that long.
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(source)
            b.tokens = min(float(self.burst), b.tokens + (now - b.at) * self.rate_per_s)
            b.at = now
        return b

    def take(self, source: str, now: float) -> float:
        """0.0 and a token taken, or the seconds until ``source`` has one (nothing taken)."""
        b = self._bucket(source, now)
        if b.tokens >= 1.0:
            b.tokens -= 1.0
            return 0.0
        return (1.0 - b.tokens) / self.rate_per_s

    def give_back(self, source: str, now: float) -> None:
        """The work was taken by the station: the token was not spent."""
        b = self._bucket(source, now)
        b.tokens = min(float(self.burst), b.tokens + 1.0)


class Every:
    """A line said at most once per ``interval_s`` for each kind (at most ``max_kinds``)."""

    def __init__(self, interval_s: float, max_kinds: int = 64) -> None:
        self.interval_s = interval_s
        self.max_kinds = max_kinds
        self._said: dict[str, tuple[float, int]] = {}  # kind -> (said at, not said since)

    def due(self, kind: str, now: float) -> int | None:
        """None: not now (counted). Else say it now, with how many went unsaid before."""
        at, unsaid = self._said.get(kind, (-float("inf"), 0))
        if now - at < self.interval_s:
            self._said[kind] = (at, unsaid + 1)
            return None
        if kind not in self._said and len(self._said) >= self.max_kinds:
            self._said.clear()
        self._said[kind] = (now, 0)
        return unsaid


def retry_after_s(wait_s: float) -> int:
    """The whole seconds for an HTTP ``Retry-After`` header (at least 1)."""
    return max(1, math.ceil(wait_s))


@dataclass
class _Window:
    start: float
    full: int = 0
    counted: Counter[str] = field(default_factory=Counter)


class Tally:
    """Which refusals of a source are journaled in full, and the summaries of the rest."""

    def __init__(self, *, full: int, interval_s: float, max_sources: int = 1024) -> None:
        if full < 0 or interval_s <= 0 or max_sources < 1:
            raise ValueError("a tally needs full >= 0, interval_s > 0, max_sources >= 1")
        self.full = full
        self.interval_s = interval_s
        self.max_sources = max_sources
        self._windows: OrderedDict[str, _Window] = OrderedDict()
        self.overflow = 0  # refusals of sources dropped for room, reported with the next due

    def _window(self, source: str, now: float) -> _Window:
        w = self._windows.get(source)
        if w is None or (now - w.start >= self.interval_s and not w.counted):
            w = _Window(now)
            self._windows[source] = w
            self._windows.move_to_end(source)
            while len(self._windows) > self.max_sources:
                _, gone = self._windows.popitem(last=False)
                self.overflow += sum(gone.counted.values())
        return w

    @property
    def pending(self) -> bool:
        """Some refusal is counted and not yet summed up."""
        return self.overflow > 0 or any(w.counted for w in self._windows.values())

    def note(self, source: str, why: str, now: float) -> bool:
        """Count one refusal of ``source``; True if it is to be journaled in full (``why``,
        a short fixed phrase, is what a summary counts it under)."""
        w = self._window(source, now)
        if w.full < self.full:
            w.full += 1
            return True
        w.counted[why] += 1
        return False

    def count(self, source: str, why: str, now: float) -> None:
        """Count one refusal of ``source`` that is never journaled in full."""
        self._window(source, now).counted[why] += 1

    def due(self, now: float) -> list[tuple[str, str]]:
        """(source, summary) for every source whose interval is over with refusals counted
        and not journaled; each window then starts again."""
        out: list[tuple[str, str]] = []
        for source, w in list(self._windows.items()):
            if now - w.start < self.interval_s:
                continue
            if w.counted:
                n = sum(w.counted.values())
                whys = ", ".join(f"{why} x{k}" for why, k in w.counted.most_common())
                out.append((source, f"{n} more refused in {now - w.start:.0f} s, not journaled "
                            f"one by one ({whys})"))
            del self._windows[source]
        if self.overflow:
            out.append(("other sources", f"{self.overflow} more refused, not journaled one "
                        "by one (sources beyond the tally's room)"))
            self.overflow = 0
        return out
