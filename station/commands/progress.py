"""A progress bar on stderr for long simulations (``simulate --progress``; issue 35).

One line, rewritten in place with a carriage return at most ten times a second: shoes done of
the shoes asked for, rounds a second, and the time left at that rate. Shown when stderr is a
terminal, or when asked for with ``--progress``; never on stdout, where results may go.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import IO

WIDTH = 30  # characters of the bar
EVERY_S = 0.1  # at most this often


class Progress:
    def __init__(self, out: IO[str], shoes: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._out = out
        self._shoes = max(shoes, 1)
        self._clock = clock
        self._started = clock()
        self._next = self._started
        self.done = 0
        self.rounds = 0
        self._shoe: object = None

    def round(self, shoe: object) -> None:
        """One round published, of ``shoe`` (its id): a new id means the last shoe is done."""
        self.rounds += 1
        if shoe != self._shoe:
            if self._shoe is not None:
                self.done += 1
            self._shoe = shoe
        now = self._clock()
        if now >= self._next:
            self._next = now + EVERY_S
            self._draw(now)

    def close(self) -> None:
        if self._shoe is not None:
            self.done += 1
            self._shoe = None
        self._draw(self._clock())
        self._out.write("\n")
        self._out.flush()

    def _draw(self, now: float) -> None:
        done = min(self.done, self._shoes)
        filled = WIDTH * done // self._shoes
        elapsed = max(now - self._started, 1e-9)
        rate = self.rounds / elapsed
        left = ""
        if 0 < done < self._shoes:
            left = f", {elapsed * (self._shoes - done) / done:,.0f} s left"
        self._out.write(f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {done:,}/{self._shoes:,} "
                        f"shoes, {rate:,.0f} rounds/s{left}")
        self._out.flush()
