"""The stall watchdog: a live camera that hangs inside ``read()`` must not be silence.

A hung USB camera (or a stream whose server stops sending but keeps the connection open)
neither gives a frame nor fails: the reader's thread sits inside OpenCV's ``read()`` until
OpenCV's own read timeout fires, if one ever does (FFmpeg's is set to 2 s for streams; V4L2
waits 10 s, and a driver stuck in its ioctl longer). The frame checks in ``health.py`` cannot
see it, because they run only when a frame arrives. So a second thread watches the time since
the last frame completed and reports a stall once; it must not be the reader's thread, which
is the one stuck.

The watchdog is armed while the reader is opening or reading a live source, and disarmed while
the reader waits to reopen one it already reported lost (nothing new to say then). A video file
is read as fast as decoding allows and never watched.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class StallWatchdog:
    """Calls ``on_stall(seconds)`` on its own thread, once per stall, when no frame has
    completed for more than ``stall_s`` seconds while armed. ``frame()`` (the reader, after
    each frame) ends a stall; ``stop()`` ends the thread and waits for it."""

    def __init__(self, stall_s: float, on_stall: Callable[[float], None], *, name: str,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        if not stall_s > 0:
            raise ValueError(f"stall_s must be a positive number of seconds, not {stall_s}")
        self.stall_s = stall_s
        self.on_stall = on_stall
        self.monotonic = monotonic
        # Checked a few times per stall_s, so a stall is reported within 1.25 stall_s.
        self.poll_s = min(stall_s / 4, 0.25)
        self._lock = threading.Lock()
        self._since: float | None = None  # last frame (or arming); None while disarmed
        self._fired = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"driver-{name}-watchdog",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def arm(self) -> None:
        """Start watching from now (the reader is about to open a source)."""
        with self._lock:
            self._since = self.monotonic()
            self._fired = False

    def disarm(self) -> None:
        with self._lock:
            self._since = None

    def frame(self) -> None:
        """A frame completed: the clock starts again and a reported stall is over."""
        with self._lock:
            self._since = self.monotonic()
            self._fired = False

    def _run(self) -> None:
        while not self._done.wait(self.poll_s):
            with self._lock:
                if self._since is None or self._fired:
                    continue
                elapsed = self.monotonic() - self._since
                if elapsed <= self.stall_s:
                    continue
                self._fired = True
            self.on_stall(elapsed)  # outside the lock: it posts, and may log
