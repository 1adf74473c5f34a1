"""Two small helpers every device driver uses when a device goes away and comes back.

``Backoff``: the delays between attempts to reopen a device, doubling from ``first_s`` up to
``cap_s`` and back to ``first_s`` once the device answers. ``LogOnce``: log an error the first
time it is seen and only at DEBUG afterwards, so a scanner unplugged for an hour leaves one
warning, not thousands; a new, different error is logged again.
"""

from __future__ import annotations

import logging


class Backoff:
    """Capped exponential backoff: ``next()`` gives the next delay in seconds."""

    def __init__(self, first_s: float = 0.05, cap_s: float = 1.0, factor: float = 2.0) -> None:
        if first_s <= 0 or cap_s < first_s or factor < 1:
            raise ValueError(f"backoff needs 0 < first_s <= cap_s and factor >= 1, not "
                             f"{first_s}, {cap_s}, {factor}")
        self.first_s = first_s
        self.cap_s = cap_s
        self.factor = factor
        self._next = first_s

    def next(self) -> float:
        delay = self._next
        self._next = min(self.cap_s, self._next * self.factor)
        return delay

    def reset(self) -> None:
        self._next = self.first_s


class LogOnce:
    """Logs each distinct message once at WARNING until ``reset`` (the device is back)."""

    def __init__(self, logger: logging.Logger) -> None:
        self._log = logger
        self._seen: set[str] = set()

    def warning(self, message: str) -> bool:
        """Log ``message``; True when it was new (logged at WARNING)."""
        if message in self._seen:
            self._log.debug("%s", message)
            return False
        self._seen.add(message)
        self._log.warning("%s", message)
        return True

    def reset(self) -> None:
        self._seen.clear()
