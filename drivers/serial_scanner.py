"""A barcode shoe scanner on a serial or USB-CDC line (pyserial): bytes in, card events out.

The port is any pyserial address: a device path (best a stable ``/dev/serial/by-id/...``
link, which survives replugging into another USB socket) or a URL (``socket://``,
``loop://``, ``rfc2217://``, ``hwgrep://``). It is opened with ``exclusive=True`` so a second
program cannot steal half the bytes.

Reading: ``read(in_waiting or 1)`` returns as soon as one byte is there, then takes whatever
else has arrived; the bytes go to ``FrameParser``, so a frame ends the moment its terminator
arrives (``readline`` would wait for an LF a CR-only scanner never sends). The read timeout
only bounds how long ``stop`` can take, never how late a card is; while the noise gate holds
bad frames, a read waits no longer than until the gate's window is due, so its summary is
posted when the second is over even if the line has gone quiet (issue 30).

What is posted:

- a card code (``CodeFormat``): ``CardRead(code, source, ts)`` in the station's form;
- the cut-card code: ``CutCardSeen``;
- a bad frame (noise, over-long, not UTF-8, control characters, empty, missing prefix) or a
  payload that is no known code: a ``CardRead`` whose code is ``?reason:shown-bytes``, e.g.
  ``?unknown:XX`` or ``?not_utf8:A\\xffS``. The station already pauses the round on a code
  that is not a card and shows it, which is what must happen: the dealer or supervisor sees
  what the scanner sent and decides. The leading ``?`` can never parse as a card, so an
  error is never mistaken for one, whatever the configured code format;
- past ``drivers.noisegate.PASS_PER_WINDOW`` bad frames (and unknown codes) a second, the
  rest of that second's are counted and posted as one ``?noise:N bad frames (B bytes)``
  when the second is over, one such code a second while the flood lasts: the journal then
  grows by one event a second, however fast the line (issue 18). The first bad frame after
  a quiet second is posted as it is, at once (issue 30);
- a supervisor badge: logged only, for now (no event carries it yet);
- the port failing (I/O error, unplugged, cannot be opened): ``DeviceLost(source, reason)``
  once, then reopen attempts with capped backoff (each distinct error logged once), then
  ``DeviceRestored`` when it opens again. A partial frame from before the loss is dropped.
  Codes scanned while the port was away are not read (the bytes never arrived): the round is
  paused meanwhile, so the dealer re-scans them.

Everything after the parser (what is posted, the noise gate, lost and restored) is
``drivers.scanner.ScannerSource``, which the USB HID scanners share.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any, cast

import serial

from drivers.codes import CodeFormat
from drivers.framing import FrameParser
from drivers.reconnect import Backoff
from drivers.scanner import ScannerSource, error_code

log = logging.getLogger(__name__)

__all__ = ["SerialScanner", "error_code"]


class SerialScanner(ScannerSource):
    """Reads one code per frame from a serial port and posts card events."""

    def __init__(
        self,
        port: str,
        *,
        name: str = "scanner",
        baudrate: int = 9600,
        bytesize: int = 8,
        parity: str = "N",
        stopbits: float = 1,
        parser: FrameParser | None = None,
        codes: CodeFormat | None = None,
        read_timeout_s: float = 0.1,
        backoff: Backoff | None = None,
        clock: Callable[[], float] = time.time,
        on_raw: Callable[[bytes, float], None] | None = None,
    ) -> None:
        """``on_raw`` (``station monitor --raw``) sees every chunk of bytes as read, with its
        time, on the driver's thread, before it is parsed."""
        super().__init__(name=name, where=port, codes=codes, read_timeout_s=read_timeout_s,
                         backoff=backoff, clock=clock)
        self.port = port
        self.serial_kwargs: dict[str, Any] = {"baudrate": baudrate, "bytesize": bytesize,
                                              "parity": parity, "stopbits": stopbits}
        self.parser = parser if parser is not None else FrameParser("cr")
        self.on_raw = on_raw
        self._ser: serial.Serial | None = None
        # pyserial discards input already waiting when it opens a port, as a scanner's bytes
        # sent before then are lost at a table: ``connected`` (the base's) says when it is open.

    # --- the base's hooks ------------------------------------------------------------------
    def _open(self) -> serial.Serial | None:
        try:
            ser = serial.serial_for_url(self.port, timeout=self.read_timeout_s,
                                        exclusive=True, **self.serial_kwargs)
        except (serial.SerialException, OSError, ValueError) as exc:
            self._cannot_open(str(exc))
            return None
        self._ser = ser
        return ser

    def _read_until_error(self, handle: object) -> str | None:
        """Read and post until stopped (None) or the port fails (the reason)."""
        ser = cast(serial.Serial, handle)  # what _open returned: any URL handler's port
        while not self.stopping.is_set():
            try:
                waiting = ser.in_waiting
                if not waiting:  # bytes waiting are read at once: no timeout to set
                    self._set_timeout(ser)
                data = ser.read(waiting or 1)
            except (serial.SerialException, OSError) as exc:
                return str(exc) or type(exc).__name__
            ts = self.clock()
            if data and self.on_raw is not None:
                self.on_raw(data, ts)
            self._deliver(self.parser.feed(data) if data else (), ts)
        return None

    def _forget_partial(self) -> None:
        self.parser.reset()

    def _set_timeout(self, ser: serial.Serial) -> None:
        """Wake by the time the noise gate's window is due (a summary is posted on time, not
        at the next byte), else at the read timeout. Set only when it changes: on a real
        port each change is a tcsetattr."""
        timeout = self._wait_s()
        if ser.timeout != timeout:
            ser.timeout = timeout

    def _close(self) -> None:
        ser, self._ser = self._ser, None
        if ser is not None:
            # An unplugged port may fail to close; it is gone either way.
            with contextlib.suppress(serial.SerialException, OSError):
                ser.close()

    def _wake(self) -> None:
        # A blocking read ends at the read timeout anyway; on POSIX ports cancel_read ends it now.
        ser = self._ser
        cancel = getattr(ser, "cancel_read", None)
        if cancel is not None:
            # Closed meanwhile: the thread is leaving already.
            with contextlib.suppress(serial.SerialException, OSError, AttributeError):
                cancel()
