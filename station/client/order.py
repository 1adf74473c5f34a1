"""De-duplication, order and gaps of one table's messages (pure).

The rules are docs/upstream.md's "Checking for gaps": events are linked by ``prev_seq``; a
message whose ``seq`` is not above the last one taken is a re-delivery; a new one whose
``prev_seq`` is not the last one taken shows a loss. Statuses are not linked (the retained
status is the latest state): a journaled one is taken when its ``seq`` is above the last
status taken, a presence status (no ``seq``) always, once per key.

Out-of-order events are held, up to ``window`` of them, for the message they link to: it
may still come (a file read out of order, two paths through bridged brokers). When more
are held than that, or on ``flush``, the oldest held one is released with a gap.

No key of a message with a ``seq`` is remembered: ``seq`` only ever increases for a table
(the station carries it across restarts and across a journal moved aside,
station/live/assembly.py), so an events message at or below the last one taken, a held one's
``seq`` again, or a status at or below the last status taken is a re-delivery. The state is
two numbers, at most ``window`` held messages and the keys of the last ``PRESENCE_KEPT``
presence statuses (the only messages with no ``seq``; the broker retains one status, so
a re-delivered presence status is one of the last few): bounded whatever the stream's
length, which keeps a consumer of hundreds of tables flat for days (issue 23).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PRESENCE_KEPT = 16


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
        self._presence: deque[str] = deque(maxlen=PRESENCE_KEPT)
        self._held: dict[int, Mapping[str, Any]] = {}  # seq -> a message waiting for its link

    @property
    def held(self) -> int:
        return len(self._held)

    def duplicate(self, m: Mapping[str, Any]) -> bool:
        """Whether ``m`` (verified, with the fields ordering needs) was taken or is held."""
        seq = m.get("seq")
        if m.get("kind") == "status":
            if isinstance(seq, int):
                return self.last_status is not None and seq <= self.last_status
            return m["key"] in self._presence
        assert isinstance(seq, int)
        return (self.last_event is not None and seq <= self.last_event) or seq in self._held

    def offer(self, m: Mapping[str, Any]) -> list[Take] | None:
        """The messages to apply now, in order (maybe none, while ``m`` is held); None when
        ``m`` is a duplicate."""
        if self.duplicate(m):
            return None
        seq = m.get("seq")
        if m.get("kind") == "status":
            if isinstance(seq, int):
                self.last_status = seq
            else:
                self._presence.append(m["key"])
            return [Take(m)]
        assert isinstance(seq, int)
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
        # Held messages a newer one overtook are re-deliveries now; drop them.
        for s in [s for s in self._held if s <= self.last_event]:
            del self._held[s]
        return Take(m)
