"""The Server-Sent Events of ``/api/events``: one bounded ring of frames every page reads
from its own cursor. A page that falls further behind than the ring skips to the latest
``tables`` frame (the floor as it is now) and goes on from there; nothing is queued per page
but what its socket holds, and a page that does not take its bytes is dropped by the
server (station.web.backlog)."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Final

RING: Final = 512  # frames
RING_BYTES: Final = 4 * 1024 * 1024  # a floor of 220 tiles is ~100 KiB a frame


class Feed:
    def __init__(self, ring: int = RING, ring_bytes: int = RING_BYTES) -> None:
        self.seq = 0
        self._frames: deque[tuple[int, bytes]] = deque(maxlen=ring)
        self._max_bytes = ring_bytes
        self._bytes = 0
        self._tables: tuple[int, bytes] = (0, b"")
        self._changed = asyncio.Event()

    def push(self, event: str, data: bytes) -> None:
        self.seq += 1
        frame = b"event: %s\ndata: %s\n\n" % (event.encode(), data)
        if len(self._frames) == self._frames.maxlen:
            self._bytes -= len(self._frames[0][1])
        self._frames.append((self.seq, frame))
        self._bytes += len(frame)
        while self._bytes > self._max_bytes and len(self._frames) > 1:
            self._bytes -= len(self._frames.popleft()[1])
        if event == "tables":
            self._tables = (self.seq, frame)
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def changed(self) -> asyncio.Event:
        return self._changed

    def since(self, cursor: int) -> tuple[int, list[bytes]]:
        """The frames after ``cursor`` and the new cursor."""
        if not self._frames or cursor >= self.seq:
            return cursor, []
        first = self._frames[0][0]
        if cursor + 1 < first:  # fell out of the ring: the floor now, then what followed
            start, head = self._tables
            frames = [head] if head else []
            return self.seq, frames + [f for s, f in self._frames if s > start]
        return self.seq, [f for s, f in self._frames if s > cursor]
