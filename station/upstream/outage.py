"""Capped backoff and the once-per-outage log line, shared by the upstream sinks.

A broker or a disk that is gone for an hour must cost one warning and one "back" line, not a
line per message or per retry.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable


class Backoff:
    """Delays that double from ``initial_s`` up to ``cap_s``; ``reset`` after a success."""

    def __init__(self, initial_s: float = 0.5, cap_s: float = 30.0) -> None:
        if not 0 < initial_s <= cap_s:
            raise ValueError(f"need 0 < initial_s <= cap_s, got {initial_s}, {cap_s}")
        self.initial_s = initial_s
        self.cap_s = cap_s
        self._next = initial_s

    def next(self) -> float:
        delay = self._next
        self._next = min(self._next * 2, self.cap_s)
        return delay

    def reset(self) -> None:
        self._next = self.initial_s


class Outage:
    """Logs the first failure of an outage and its end, and nothing in between.

    Thread-safe enough for its use: the flags are only written by one thread at a time
    (the sink's own thread, or paho's network thread for the MQTT callbacks).
    """

    def __init__(self, logger: logging.Logger, what: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._log = logger
        self._what = what
        self._clock = clock
        self._since: float | None = None

    @property
    def ongoing(self) -> bool:
        return self._since is not None

    def failed(self, reason: str, backlog: int) -> bool:
        """Note a failure; logs (and returns True) only for the first of an outage."""
        if self._since is not None:
            return False
        self._since = self._clock()
        self._log.warning(
            "%s unavailable: %s; %d message(s) wait in the outbox and go out in order when "
            "it is back", self._what, reason, backlog,
        )
        return True

    def recovered(self, backlog: int) -> float | None:
        """Note a success; logs (and returns the outage's length in seconds) if one ended."""
        if self._since is None:
            return None
        lasted = self._clock() - self._since
        self._since = None
        self._log.warning("%s back after %.1f s; %d message(s) to send", self._what, lasted,
                          backlog)
        return lasted
