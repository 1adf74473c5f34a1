"""The cut-card sensor wired to a modem-status pin of a USB-serial adapter.

A contact in the shoe's mouth closes when the cut card (the black plastic card) passes; it is
wired between a modem-control output of the adapter and one of its inputs (CTS, DSR, CD or
RI), so the pin reads true while the card is in the mouth. The pin is polled every
``poll_ms`` and debounced: it must read the same for ``debounce_ms`` before a change counts,
so a bouncing contact gives one ``CutCardSeen`` per pass, on the edge where it closes. The
station already treats a second sighting in a shoe as a notice only.

The port is any pyserial address, like the scanner's. A port that fails or cannot be opened
gives ``DeviceLost`` once and ``DeviceRestored`` when it opens again (capped backoff, each
distinct error logged once). A pin held closed at start or at a reopen is not an edge: a card
is seen only when the contact closes while the sensor watches.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable

import serial

from drivers.base import EventSource
from drivers.events import CutCardSeen, DeviceLost, DeviceRestored
from drivers.reconnect import Backoff, LogOnce

log = logging.getLogger(__name__)

PINS = ("cts", "dsr", "cd", "ri")


class Debouncer:
    """Pure: ``feed(level, now)`` returns True once per settled change to closed."""

    def __init__(self, debounce_s: float, level: bool = False) -> None:
        self.debounce_s = debounce_s
        self.stable = level
        self._candidate = level
        self._since = 0.0

    def feed(self, level: bool, now: float) -> bool:
        if level != self._candidate:
            self._candidate, self._since = level, now
        if self._candidate != self.stable and now - self._since >= self.debounce_s:
            self.stable = self._candidate
            return self.stable
        return False


class CutCardSensor(EventSource):
    """Posts ``CutCardSeen`` when the contact on ``pin`` closes (debounced)."""

    def __init__(self, port: str, *, pin: str = "cts", name: str = "cut-sensor",
                 debounce_ms: int = 20, poll_ms: int = 2, backoff: Backoff | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        if pin not in PINS:
            raise ValueError(f"pin must be one of {', '.join(PINS)}, not {pin!r}")
        self.name = name
        self.port = port
        self.pin = pin
        self.debounce_s = debounce_ms / 1000.0
        self.poll_s = poll_ms / 1000.0
        self.backoff = backoff if backoff is not None else Backoff()
        self.clock = clock
        self._errors = LogOnce(log)
        # Set while the pin is being watched (its resting level read): a pass before then is
        # taken for where the contact rests, so a test or a bench waits for this first.
        self.connected = threading.Event()

    def _run(self) -> None:
        lost = False
        while not self.stopping.is_set():
            try:
                ser = serial.serial_for_url(self.port, timeout=0)
            except (serial.SerialException, OSError, ValueError) as exc:
                reason = f"cannot open {self.port}: {exc}"
                self._errors.warning(f"{self.name}: {reason}")
                if not lost:
                    self.post(DeviceLost(self.name, reason, self.clock()))
                    lost = True
                self.stopping.wait(self.backoff.next())
                continue
            self.backoff.reset()
            self._errors.reset()
            if lost:
                self.post(DeviceRestored(self.name, self.clock()))
                lost = False
            failure = self._watch(ser)
            self.connected.clear()
            with contextlib.suppress(serial.SerialException, OSError):
                ser.close()
            if failure is not None and not self.stopping.is_set():
                self._errors.warning(f"{self.name}: {self.port}: {failure}")
                self.post(DeviceLost(self.name, failure, self.clock()))
                lost = True

    def _watch(self, ser: serial.Serial) -> str | None:
        """Poll the pin until stopped (None) or the port fails (the reason)."""
        try:
            # Whatever the pin reads now is where it rests, not a card passing.
            debouncer = Debouncer(self.debounce_s, bool(getattr(ser, self.pin)))
            self.connected.set()
            while not self.stopping.wait(self.poll_s):
                now = time.monotonic()
                if debouncer.feed(bool(getattr(ser, self.pin)), now):
                    self.post(CutCardSeen(self.name, self.clock()))
        except (serial.SerialException, OSError) as exc:
            return str(exc) or type(exc).__name__
        return None
