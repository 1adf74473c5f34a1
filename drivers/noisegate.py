"""Bad frames from one reader, posted one by one up to a rate, then counted (issue 18).

Pure: no I/O; the caller passes the time. A reader with a bad cable, the wrong baud rate or a
fault can send tens of thousands of bad frames a second over USB. Every posted event is
journaled, so without a gate the journal grows with the line's speed. The gate posts up to
``PASS_PER_WINDOW`` bad frames in each ``WINDOW_S`` as they came (more than the station's
flood threshold, so the station still sees a flood and reports it once), and counts the rest.
When the window closes, the count is posted as one summary code, ``?noise:N bad frames
(B bytes)``: never a card (the leading ``?``), shown like any bad code. While every window
overflows, the reader is flooding and each window is one summary, so a flood costs the
journal one event a second, however fast the line. The flood ends with the first window that
does not overflow, or with a quiet ``WINDOW_S`` (no bad frame at all): the first bad frame
after a quiet second is passed at once, never held for a summary, so a lone misread after a
burst still pauses the round before the next card is read (issue 30).

Every window's summary is due ``WINDOW_S`` after its first frame, whether or not another
frame comes: the reader asks ``due_in`` how long it may wait for bytes and calls
``close_due`` when it wakes, so a summary is never later than the window plus one wake-up.

Good frames (cards, the cut card, badges) are never held: the gate sees only bad ones.
``recording.raw`` still keeps every byte the reader sent.
"""

from __future__ import annotations

from typing import Final

PASS_PER_WINDOW: Final = 25
WINDOW_S: Final = 1.0


def summary_code(frames: int, nbytes: int) -> str:
    return f"?noise:{frames} bad frames ({nbytes} bytes)"


class NoiseGate:
    """One reader's gate. Call from the reader's thread only."""

    def __init__(self, per_window: int = PASS_PER_WINDOW, window_s: float = WINDOW_S) -> None:
        self.per_window = per_window
        self.window_s = window_s
        self._start: float | None = None  # the open window's first bad frame
        self._passed = 0
        self._held = 0
        self._held_bytes = 0
        self._last: float | None = None  # the last bad frame, passed or held
        self.flooding = False  # the last window overflowed: hold every frame of this one

    def admit(self, ts: float, nbytes: int) -> bool:
        """A bad frame of ``nbytes`` at ``ts``: True to post it as it is, False if counted.
        Call ``close_due(ts)`` first, so a frame opens a new window when the last is over."""
        self._end_quiet_flood(ts)
        self._last = ts
        if self._start is None:
            self._start = ts
        if not self.flooding and self._passed < self.per_window:
            self._passed += 1
            return True
        self._held += 1
        self._held_bytes += nbytes
        return False

    def close_due(self, ts: float) -> str | None:
        """Close the window if it is over at ``ts``: the summary code to post, if any was held.
        abs(): a clock stepped back ends the window rather than holding frames forever."""
        self._end_quiet_flood(ts)
        if self._start is None or abs(ts - self._start) < self.window_s:
            return None
        return self.close()

    def due_in(self, ts: float) -> float | None:
        """Seconds from ``ts`` until the open window is due to close (0 if it is over), or
        None with no window open: how long the reader may wait before calling ``close_due``."""
        if self._start is None:
            return None
        # The same difference close_due compares: 0 exactly when it would close the window.
        return max(0.0, self.window_s - abs(ts - self._start))

    def _end_quiet_flood(self, ts: float) -> None:
        # A whole window without a bad frame ends a flood, even a window nobody opened: else
        # the flag of a burst long over would hold the next lone frame for a summary.
        # abs(): a clock stepped back counts as quiet rather than holding frames forever.
        if self.flooding and self._last is not None and abs(ts - self._last) >= self.window_s:
            self.flooding = False

    def reset(self) -> None:
        """Forget the window and any flood (a port opened afresh)."""
        self._start, self._passed, self._held, self._held_bytes = None, 0, 0, 0
        self._last = None
        self.flooding = False

    def close(self) -> str | None:
        """Close the window now (the port is lost or the reader stops): its summary, if any."""
        held, nbytes = self._held, self._held_bytes
        # Overflowed: more bad frames than may pass came in this window.
        self.flooding = self._passed + held > self.per_window
        self._start, self._passed, self._held, self._held_bytes = None, 0, 0, 0
        return summary_code(held, nbytes) if held else None
