"""A USB barcode scanner in HID-POS mode (the HID Point of Sale usage tables, usage page
0x8C), read through hidraw.

A scanner in this mode is no keyboard: the kernel gives its reports to ``/dev/hidrawN``
only, so nothing types anywhere and no grab is needed. Each ``read`` of a hidraw node is one
input report. The scanned-data report, as the scanners in use send it:

| byte | what |
|---|---|
| 0 | report id 0x02 |
| 1 | how many of the data bytes are the code (0-56) |
| 2-57 | the code's bytes, padded |
| 58-60 | the symbology identifier (an AIM id such as ``]C0``, or a vendor's), NUL-padded |
| 63 | bit 0 set: the code goes on in the next report (a code over 56 bytes) |

Bytes 58-63 may be missing (a scanner that sends only its code's bytes); then there is no
symbology and no continuation. ``PosReports`` puts a code together from its reports and
checks it with the serial scanners' ``framing.check_frame`` (UTF-8, no control characters,
prefix and suffix); a CR, LF or Tab a scanner was set to append is dropped first, as the
report already frames the code. Everything after is the serial scanner's
(``drivers.scanner.ScannerSource``), the symbology kept on the card's event.

Bad reports are reported, never guessed at: a report whose id is not 0x02 (``not_report``),
a length over 56 or over what the report holds (``bad_length``), a code longer than
``max_len`` bytes over several reports (``too_long``, then everything up to the end of that
code is dropped).

The device is named by its path or by its USB ids (``find_hidraw``), looked up again at each
open, so a replug is found again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from drivers.codes import CodeFormat
from drivers.framing import TOO_LONG, FrameError, Parsed, check_frame, show_bytes
from drivers.reconnect import Backoff
from drivers.scanner import ScannerSource

log = logging.getLogger(__name__)

REPORT_ID: Final = 0x02
DATA_MAX: Final = 56
SYMBOLOGY: Final = slice(58, 61)
MORE_AT: Final = 63
READ_BYTES: Final = 64  # a full-speed USB interrupt packet: the largest report they send
NOT_REPORT: Final = "not_report"
BAD_LENGTH: Final = "bad_length"
SYS_HIDRAW = Path("/sys/class/hidraw")
DEV = Path("/dev")
_TERMINATORS: Final = b"\r\n\t"


class PosReports:
    """Scanned-data reports in, whole codes out. Pure; call from one thread."""

    def __init__(self, *, prefix: str = "", suffix: str = "", max_len: int = 64) -> None:
        self.prefix = prefix
        self.suffix = suffix
        self.max_len = max_len
        self.reset()

    def reset(self) -> None:
        self._buf = bytearray()
        self._discarding = False  # inside a code that grew too long

    def feed(self, report: bytes) -> tuple[list[Parsed], str | None]:
        """The codes ``report`` completed, and the symbology it named (None if none)."""
        if len(report) < 2 or report[0] != REPORT_ID:
            self.reset()
            return [FrameError(NOT_REPORT, report)], None
        n = report[1]
        if n > DATA_MAX or 2 + n > len(report):
            self.reset()
            return [FrameError(BAD_LENGTH, report)], None
        symbology = bytes(report[SYMBOLOGY]).rstrip(b"\x00")
        named = show_bytes(symbology) if symbology else None
        more = len(report) > MORE_AT and bool(report[MORE_AT] & 1)
        out: list[Parsed] = []
        if not self._discarding:
            self._buf += report[2:2 + n]
            if len(self._buf) > self.max_len:
                out.append(FrameError(TOO_LONG, bytes(self._buf)))
                self._buf.clear()
                self._discarding = True
        if more:
            return out, named
        if self._discarding:
            self._discarding = False  # the long code ended: the next report starts afresh
            return out, named
        raw = bytes(self._buf)
        self._buf.clear()
        out.append(check_frame(raw.rstrip(_TERMINATORS), self.prefix, self.suffix))
        return out, named


def find_hidraw(vendor: int, product: int, sys_root: Path = SYS_HIDRAW,
                dev_root: Path = DEV) -> str | None:
    """The hidraw node of the USB device ``vendor:product`` (its ``uevent`` says
    ``HID_ID=0003:0000VVVV:0000PPPP``), the first by name, or None."""
    want = f":{vendor:08X}:{product:08X}"
    for node in sorted(sys_root.glob("hidraw*")):
        try:
            uevent = (node / "device" / "uevent").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        for line in uevent.splitlines():
            if line.startswith("HID_ID=") and line.upper().endswith(want):
                return str(dev_root / node.name)
    return None


class HidPosScanner(ScannerSource):
    """Reads scanned-data reports from a hidraw node and posts card events."""

    def __init__(
        self,
        device: str | None = None,
        *,
        usb: tuple[int, int] | None = None,
        name: str = "scanner",
        reports: PosReports | None = None,
        codes: CodeFormat | None = None,
        read_timeout_s: float = 0.1,
        backoff: Backoff | None = None,
        clock: Callable[[], float] = time.time,
        on_raw: Callable[[bytes, float], None] | None = None,
        find: Callable[[int, int], str | None] = find_hidraw,
    ) -> None:
        if (device is None) == (usb is None):
            raise ValueError("name the scanner by its device path or by its USB ids, one")
        where = device if device is not None else f"USB {usb[0]:04x}:{usb[1]:04x}"  # type: ignore[index]
        super().__init__(name=name, where=where, codes=codes, read_timeout_s=read_timeout_s,
                         backoff=backoff, clock=clock)
        self.device = device
        self.usb = usb
        self.reports = reports if reports is not None else PosReports()
        self.on_raw = on_raw
        self.find = find
        self.path: str | None = None
        self._fd = -1

    def _open(self) -> int | None:
        path = self.device
        if path is None:
            assert self.usb is not None
            path = self.find(*self.usb)
            if path is None:
                self._cannot_open("no hidraw node with these ids is plugged in")
                return None
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            self._cannot_open(exc.strerror or str(exc))
            return None
        self.path = path
        self._fd = fd
        return fd

    def _read_until_error(self, handle: object) -> str | None:
        fd = handle
        assert isinstance(fd, int)
        while not self.stopping.is_set():
            try:
                ready, _, _ = select.select([fd], [], [], self._wait_s())
            except (OSError, ValueError) as exc:
                return f"cannot wait on it: {exc}"
            ts = self.clock()
            if not ready:
                self._deliver((), ts)
                continue
            try:
                report = os.read(fd, READ_BYTES)
            except BlockingIOError:
                continue
            except OSError as exc:  # EIO/ENODEV: unplugged
                return exc.strerror or str(exc)
            if not report:
                return "the device closed"  # a test's FIFO without a writer; never hidraw
            if self.on_raw is not None:
                self.on_raw(report, ts)
            items, symbology = self.reports.feed(report)
            self._deliver(items, ts, symbology)
        return None

    def _forget_partial(self) -> None:
        self.reports.reset()

    def _close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
