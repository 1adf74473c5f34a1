"""The Sequencer as it was before issue 23's memory fix, with its one bound removed: it
remembers every key it took, so it is the rule of "once per key" itself. The tests compare
``station.client.order.Sequencer`` (which remembers no key of a message with a ``seq``)
with it: on any interleaving of re-deliveries and reorders, the same messages in the same
order with the same gaps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from station.client.order import Take


class KeyedSequencer:
    def __init__(self, window: int = 16) -> None:
        self.window = window
        self.last_event: int | None = None
        self.last_status: int | None = None
        self._keys: set[str] = set()
        self._held: dict[int, Mapping[str, Any]] = {}

    @property
    def held(self) -> int:
        return len(self._held)

    def offer(self, m: Mapping[str, Any]) -> list[Take] | None:
        if m["key"] in self._keys or any(h["key"] == m["key"] for h in self._held.values()):
            return None
        seq = m.get("seq")
        if m.get("kind") == "status":
            if isinstance(seq, int):
                if self.last_status is not None and seq <= self.last_status:
                    return None
                self.last_status = seq
            self._keys.add(m["key"])
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
        out: list[Take] = []
        while self._held:
            out += self._release()
        return out

    def _release(self) -> list[Take]:
        m = self._held.pop(min(self._held))
        after = self.last_event
        return [Take(self._take(m).message, gap_after=after), *self._drain()]

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
        self._keys.add(m["key"])
        for s in [s for s in self._held if s <= self.last_event]:
            del self._held[s]
        return Take(m)
