"""The handoff from the station's loop thread to the server's event loop.

The loop thread only ever replaces the latest view (bytes) and bumps a version number under a
lock, then wakes the server's loop at most once per burst; the server's clients each read the
latest bytes when they are ready. Nothing is queued per client, so a page that stops reading
costs nothing but its own socket buffer (and is dropped by the server).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

from station.game.roads import Roads


class Hub:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.version = 0
        self.state = b"{}"
        self.published_at = 0.0  # wall clock, for the page's event-to-DOM latency
        self._envelope: tuple[int, bytes] = (-1, b"")
        self.roads_version = -1
        self.roads: Roads | None = None  # immutable; drawn by the server when asked
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake_pending = False
        self._changed: asyncio.Event | None = None

    # --- the station's loop thread --------------------------------------------------------
    def publish(self, state: bytes, roads: tuple[int, Roads] | None = None) -> None:
        now = time.time()
        with self._lock:
            self.version += 1
            self.state = state
            self.published_at = now
            if roads is not None:
                self.roads_version, self.roads = roads
            loop = self._loop
            if loop is None or self._wake_pending:
                return
            self._wake_pending = True
        # RuntimeError: the server's loop is closed, the station is stopping.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._wake)

    # --- the server's event loop ----------------------------------------------------------
    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._changed = asyncio.Event()
        with self._lock:
            self._loop = loop

    def detach(self) -> None:
        with self._lock:
            self._loop = None

    def latest(self) -> tuple[int, bytes]:
        with self._lock:
            return self.version, self.state

    def envelope(self) -> tuple[int, bytes]:
        """The version and the message a page gets: the view and when it was published
        (wall clock, seconds). Built once per version, however many pages read it."""
        with self._lock:
            version, state, at = self.version, self.state, self.published_at
            cached = self._envelope
        if cached[0] == version:
            return cached
        made = (version, b'{"version":%d,"applied":%.4f,"state":%s}' % (version, at, state))
        with self._lock:
            if self.version == version:
                self._envelope = made
        return made

    def latest_roads(self) -> tuple[int, Roads | None]:
        with self._lock:
            return self.roads_version, self.roads

    def changed(self) -> asyncio.Event:
        """An event set at the next publish (a fresh one after each)."""
        assert self._changed is not None
        return self._changed

    def _wake(self) -> None:
        with self._lock:
            self._wake_pending = False
        assert self._changed is not None
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def wake_all(self) -> None:
        """On the server's loop: wake every waiting client (the server is stopping)."""
        if self._changed is not None:
            self._wake()
