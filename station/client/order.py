"""De-duplication, order and gaps of one table's messages (pure).

The rules are docs/upstream.md's "Checking for gaps": events are linked by ``prev_seq``; a
message whose ``seq`` is not above the last one taken is a re-delivery; a new one whose
``prev_seq`` is not the last one taken shows a loss. Statuses are not linked (the retained
status is the latest state): a journaled one is taken when its ``seq`` is above the last
status taken, a presence status (no ``seq``) always, once per key.

Out-of-order events are held, up to ``window`` of them, for the message they link to: it
may still come (a file read out of order, two paths through bridged brokers). When more
are held than that, or on ``flush``, the oldest held one is released with a gap.

Memory is bounded: the keys remembered are the last ``KEYS_KEPT``, and at most ``window``
messages are held.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KEYS_KEPT = 4096


@dataclass(frozen=True, slots=True)
class Take:
    message: Mapping[str, Any]
    gap_after: int | None = None  # with a gap: the last seq taken before it


class Sequencer:
    """Says, for each verified message of one table, which messages to apply now."""

    def __init__(self, window: int = 16) -> None:
        if window < 0:
            raise ValueError("window is 0 or more")
        self.window = window
        self.last_event: int | None = None
        self.last_status: int | None = None
        self._keys: set[str] = set()
        self._order: deque[str] = deque()
        self._held: dict[int, Mapping[str, Any]] = {}  # seq -> a message waiting for its link

    @property
    def held(self) -> int:
        return len(self._held)

    def seen(self, key: str) -> bool:
        return key in self._keys or any(m["key"] == key for m in self._held.values())

    def offer(self, m: Mapping[str, Any]) -> list[Take] | None:
        """The messages to apply now, in order (maybe none, while ``m`` is held); None when
        ``m`` is a duplicate."""
        if self.seen(m["key"]):
            return None
        seq = m.get("seq")
        if m.get("kind") == "status":
            if isinstance(seq, int):
                if self.last_status is not None and seq <= self.last_status:
                    return None
                self.last_status = seq
            self._remember(m["key"])
            return [Take(m)]
        assert isinstance(seq, int)
        if self.last_event is not None and seq <= self.last_event:
            return None
        prev = m.get("prev_seq")
        if self.last_event is None or prev is None or prev == self.last_event:
            return [self._take(m), *self._drain()]
        self._held[seq] = m
        out: list[Take] = []
        while len(self._held) > self.window:
            out += self._release()
        return out

    def flush(self) -> list[Take]:
        """Give up waiting: release every held message, in order, with its gaps."""
        out: list[Take] = []
        while self._held:
            out += self._release()
        return out

    def _release(self) -> list[Take]:
        first = min(self._held)
        m = self._held.pop(first)
        after = self.last_event
        take = self._take(m)
        return [Take(take.message, gap_after=after), *self._drain()]

    def _drain(self) -> list[Take]:
        out: list[Take] = []
        while True:
            nxt = next((s for s, h in self._held.items() if h.get("prev_seq") == self.last_event),
                       None)
            if nxt is None:
                return out
            out.append(self._take(self._held.pop(nxt)))

    def _take(self, m: Mapping[str, Any]) -> Take:
        self.last_event = m["seq"]
        self._remember(m["key"])
        # Held messages a newer one overtook are re-deliveries now; drop them.
        for s in [s for s in self._held if s <= self.last_event]:
            del self._held[s]
        return Take(m)

    def _remember(self, key: str) -> None:
        self._keys.add(key)
        self._order.append(key)
        if len(self._order) > KEYS_KEPT:
            self._keys.discard(self._order.popleft())
