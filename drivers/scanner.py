"""What every code scanner shares, whatever carries its codes: the device lost and found
again, frames turned into events, and the noise gate in front of the bad ones.

A scanner is a ``ScannerSource``: its subclass opens its device (``_open``), reads it until
it fails (``_read_until_error``, handing what it parsed to ``_deliver``) and closes it
(``_close``). The loop here does the rest, the same for a serial line (``serial_scanner``),
a keyboard-wedge scanner read through evdev (``hid_scanner``) and a HID-POS one read through
hidraw (``hidpos``), so none of them has its own copy of the rules below:

- a good frame is classified by the ``CodeFormat``: a card, the cut card, a badge, or
  unknown (``drivers.codes.code_event``); an unknown payload counts as a bad frame for the
  gate;
- a bad frame (``FrameError``) is posted as a ``CardRead`` whose code is
  ``?reason:shown-bytes``: never a card, whatever the code format, and the station pauses on
  it and shows it;
- past ``drivers.noisegate.PASS_PER_WINDOW`` bad frames a second the rest are counted and
  posted as one ``?noise:...`` summary when the second is over (issue 18); the subclass asks
  ``_wait_s`` how long it may block, so the summary is on time on a quiet line (issue 30);
- the device failing: ``DeviceLost(source, reason)`` once, reopen attempts with capped
  backoff (each distinct error logged once), ``DeviceRestored`` when it opens again; a
  partial frame from before the loss is forgotten (``_forget_partial``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from drivers.base import EventSource
from drivers.codes import CodeFormat, UnknownCode, code_event
from drivers.events import CardRead, DeviceLost, DeviceRestored
from drivers.framing import Frame, FrameError, Parsed, show_bytes
from drivers.noisegate import NoiseGate
from drivers.reconnect import Backoff, LogOnce

log = logging.getLogger(__name__)

# The shortest wait while the noise gate's window is due: a clock that stands still (a
# test's) must not make the reading thread spin.
MIN_WAIT_S = 0.005


def error_code(reason: str, raw: bytes) -> str:
    """The code posted for a bad frame or an unknown payload: never a card, safe to show."""
    return f"?{reason}:{show_bytes(raw)}"


class ScannerSource(EventSource):
    """A scanner whose codes arrive as frames. Subclasses set ``where`` (what to name in a
    log line: the port or device) and implement the hooks."""

    def __init__(self, *, name: str, where: str, codes: CodeFormat | None,
                 read_timeout_s: float, backoff: Backoff | None,
                 clock: Callable[[], float]) -> None:
        super().__init__()
        self.name = name
        self.where = where
        self.codes = codes if codes is not None else CodeFormat()
        self.read_timeout_s = read_timeout_s
        self.backoff = backoff if backoff is not None else Backoff()
        self.clock = clock
        self._log_once = LogOnce(log)
        self._noise = NoiseGate()  # bad frames one by one up to a rate, then counted
        self._last_error = ""  # why the last open failed, for DeviceLost
        # Set while the device is open: what a scanner sends before then is lost, so a test
        # or a monitor waits for this before writing into a simulated scanner.
        self.connected = threading.Event()

    # --- hooks ---------------------------------------------------------------------------
    def _open(self) -> object | None:
        """Open the device: a handle for ``_read_until_error``, or None after calling
        ``_cannot_open`` with why not."""
        raise NotImplementedError

    def _read_until_error(self, handle: object) -> str | None:
        """Read and ``_deliver`` until stopped (None) or the device fails (the reason)."""
        raise NotImplementedError

    def _close(self) -> None:
        """Close the device opened last; never raises."""

    def _forget_partial(self) -> None:
        """Drop half a frame (the device was reopened: half a code is no code)."""

    # --- for the subclasses ----------------------------------------------------------------
    def _cannot_open(self, why: str) -> None:
        self._last_error = f"cannot open {self.where}: {why}"
        self._log_once.warning(f"{self.name}: {self._last_error}")

    def _wait_s(self) -> float:
        """How long a read may block: until the noise gate's window is due, else the read
        timeout (which only bounds how long ``stop`` takes, never how late a card is)."""
        due = self._noise.due_in(self.clock())
        return self.read_timeout_s if due is None else max(MIN_WAIT_S,
                                                           min(self.read_timeout_s, due))

    def _deliver(self, items: Iterable[Parsed], ts: float,
                 symbology: str | None = None) -> None:
        """Post what one read completed, read at ``ts``. Call it after every read, also one
        that timed out with nothing, so a flood's last window is summed up when it ends."""
        self._post_summary(self._noise.close_due(ts), ts)
        for item in items:
            self._post_parsed(item, ts, symbology)

    # --- the loop ----------------------------------------------------------------------------
    def _run(self) -> None:
        lost = False  # DeviceLost posted and not yet answered by DeviceRestored
        while not self.stopping.is_set():
            handle = self._open()
            if handle is None:
                if not lost:
                    self.post(DeviceLost(self.name, self._last_error, self.clock()))
                    lost = True
                self.stopping.wait(self.backoff.next())
                continue
            self.backoff.reset()
            self._log_once.reset()
            self.connected.set()
            if lost:
                log.info("%s: %s open again", self.name, self.where)
                self.post(DeviceRestored(self.name, self.clock()))
                lost = False
            reason = self._read_until_error(handle)
            self.connected.clear()
            self._close()
            self._forget_partial()
            if not self.stopping.is_set():  # a stop posts nothing more
                self._post_summary(self._noise.close())
            self._noise.reset()
            if reason is not None and not self.stopping.is_set():
                self._log_once.warning(f"{self.name}: {self.where}: {reason}")
                self.post(DeviceLost(self.name, reason, self.clock()))
                lost = True

    def _post_parsed(self, item: Parsed, ts: float, symbology: str | None) -> None:
        if isinstance(item, FrameError):
            if self._noise.admit(ts, len(item.raw)):
                log.warning("%s: bad frame (%s): %s", self.name, item.reason,
                            show_bytes(item.raw))
                self.post(CardRead(error_code(item.reason, item.raw), self.name, ts))
            return
        assert isinstance(item, Frame)
        code = self.codes.classify(item.payload)
        if isinstance(code, UnknownCode) and not self._noise.admit(ts, len(item.raw)):
            return
        event = code_event(code, item.raw, self.name, ts, symbology)
        if event is not None:
            self.post(event)

    def _post_summary(self, code: str | None, ts: float | None = None) -> None:
        if code is not None:
            log.warning("%s: %s held back, not posted one by one", self.name, code)
            self.post(CardRead(code, self.name, self.clock() if ts is None else ts))
