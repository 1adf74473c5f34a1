"""A USB barcode scanner in keyboard mode (a "keyboard wedge"), read through Linux's evdev
with python-evdev and grabbed, so no other program sees a keystroke of it.

Most USB scanners ship as a HID keyboard that types each code and an Enter. Left alone it
types into whatever has the focus, which at a table is the kiosk page, where N, O and C are
NEW SHOE, OPEN BETTING and CLOSE BETTING. So the reader takes the device's event node with an
exclusive grab (``EVIOCGRAB``) before it reads anything: from then on the kernel hands its
events to this reader only, not to the console, the desktop or the browser. A grab another
program already holds (``station monitor``, ``evtest --grab``) is a device that cannot be
opened, reported and retried like a missing one.

The device is named by its stable path (``/dev/input/by-id/usb-...-event-kbd``, which
survives a replug into another socket) or by its USB ids (``find_event_node``), looked up
again at every open, so a replug is found again either way.

Key events become bytes by the declared keyboard layout (``drivers.keyboard``,
``drivers.layouts``), and the bytes go through the serial scanners' ``FrameParser``: Enter
(or keypad Enter) ends a frame with framing ``cr``, Tab with ``tab``. From there everything
is the serial scanner's, by the same code (``drivers.scanner.ScannerSource``): the code
format, prefix and suffix, bad-frame reports, the noise gate, ``DeviceLost`` and
``DeviceRestored``. A code cut short by an unplug is dropped, its keyboard state too.

``open_device`` is the seam to the kernel: python-evdev's ``InputDevice`` by default. The
tests give it a FIFO carrying the kernel's ``input_event`` records and record the calls made
on the device (the grab before the first read).
"""

from __future__ import annotations

import contextlib
import logging
import select
import struct
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from drivers.codes import CodeFormat
from drivers.framing import FrameParser
from drivers.keyboard import KEY_ENTER, KeyDecoder, Layout
from drivers.reconnect import Backoff
from drivers.scanner import ScannerSource

log = logging.getLogger(__name__)

SYS_INPUT = Path("/sys/class/input")
DEV_INPUT = Path("/dev/input")
TERMINATORS = {"enter": "cr", "tab": "tab"}  # reader.terminator -> the parser's framing
_LONG_BITS = struct.calcsize("l") * 8  # the kernel prints a bitmap in words of its long


class KeyEvent(Protocol):
    type: int
    code: int
    value: int


class InputDeviceLike(Protocol):
    """What the reader uses of ``evdev.InputDevice``."""

    fd: int

    def grab(self) -> None: ...

    def read(self) -> Iterator[Any]: ...

    def close(self) -> None: ...


OpenDevice = Callable[[str], InputDeviceLike]


def open_evdev(path: str) -> InputDeviceLike:
    import evdev  # noqa: PLC0415 - python-evdev only for a config that names a HID scanner

    device: InputDeviceLike = evdev.InputDevice(path)
    return device


def _hex(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="ascii").strip(), 16)
    except (OSError, ValueError):
        return None


def types_enter(node: Path) -> bool:
    """Whether the event node ``node`` (``/sys/class/input/eventN``) has an Enter key: the
    capability bitmap is hexadecimal words, most significant first, of the platform's long."""
    try:
        words = (node / "device" / "capabilities" / "key").read_text(encoding="ascii").split()
        bits = 0
        for word in words:
            bits = (bits << _LONG_BITS) | int(word, 16)
    except (OSError, ValueError):
        return False
    return bool(bits >> KEY_ENTER & 1)


def find_event_node(vendor: int, product: int, sys_root: Path = SYS_INPUT,
                    dev_root: Path = DEV_INPUT) -> str | None:
    """The event node of the USB device ``vendor:product`` that types Enter (a scanner may
    have others: its consumer keys, a mouse for its settings), or None. The first by name
    when there are several such scanners: name one by its by-id path instead."""
    found = []
    for node in sorted(sys_root.glob("event*")):
        ids = node / "device" / "id"
        if (_hex(ids / "vendor"), _hex(ids / "product")) == (vendor, product) \
                and types_enter(node):
            found.append(str(dev_root / node.name))
    return found[0] if found else None


class HidScanner(ScannerSource):
    """Reads one code per terminated line of keystrokes from a grabbed evdev node."""

    def __init__(
        self,
        device: str | None = None,
        *,
        usb: tuple[int, int] | None = None,
        name: str = "scanner",
        layout: Layout,
        parser: FrameParser | None = None,
        codes: CodeFormat | None = None,
        read_timeout_s: float = 0.1,
        backoff: Backoff | None = None,
        clock: Callable[[], float] = time.time,
        on_raw: Callable[[bytes, float], None] | None = None,
        open_device: OpenDevice = open_evdev,
        find: Callable[[int, int], str | None] = find_event_node,
    ) -> None:
        """``device``: the event node's path, or ``usb``: the USB ids to find it by.
        ``on_raw`` sees the bytes the keys typed, as a serial scanner's raw bytes."""
        if (device is None) == (usb is None):
            raise ValueError("name the scanner by its device path or by its USB ids, one")
        where = device if device is not None else f"USB {usb[0]:04x}:{usb[1]:04x}"  # type: ignore[index]
        super().__init__(name=name, where=where, codes=codes, read_timeout_s=read_timeout_s,
                         backoff=backoff, clock=clock)
        self.device = device
        self.usb = usb
        self.decoder = KeyDecoder(layout)
        self.parser = parser if parser is not None else FrameParser("cr")
        self.on_raw = on_raw
        self.open_device = open_device
        self.find = find
        self.path: str | None = None  # the node opened last
        self._dev: InputDeviceLike | None = None

    # --- the base's hooks ------------------------------------------------------------------
    def _open(self) -> InputDeviceLike | None:
        path = self.device
        if path is None:
            assert self.usb is not None
            path = self.find(*self.usb)
            if path is None:
                self._cannot_open("no keyboard event node with these ids is plugged in")
                return None
        try:
            dev = self.open_device(path)
        except OSError as exc:
            self._cannot_open(exc.strerror or str(exc))
            return None
        try:
            # Before the first read: from here on no other program gets its keystrokes.
            dev.grab()
        except OSError as exc:
            with contextlib.suppress(OSError):
                dev.close()
            self._cannot_open(f"it cannot be grabbed ({exc.strerror or exc}): another "
                              "program holds it (station monitor, evtest --grab)")
            return None
        self.path = path
        self._dev = dev
        return dev

    def _read_until_error(self, handle: object) -> str | None:
        dev: InputDeviceLike = handle  # type: ignore[assignment]
        while not self.stopping.is_set():
            try:
                # The wait ends by the read timeout at the latest, which bounds how long a stop
                # takes, never how late a code is: select returns the moment a key arrives.
                ready, _, _ = select.select([dev.fd], [], [], self._wait_s())
            except (OSError, ValueError) as exc:
                return f"cannot wait on it: {exc}"
            ts = self.clock()
            if not ready:
                self._deliver((), ts)  # a timeout: a flood's window may be due
                continue
            try:
                events = list(dev.read())
            except BlockingIOError:
                continue
            except OSError as exc:  # ENODEV: unplugged
                return exc.strerror or str(exc)
            if not events:
                # End of file: a real event node never gives it (an unplug is ENODEV), the
                # FIFO of a test does when its writer leaves. Either way the device is gone.
                return "the device closed"
            self._typed(events, ts)
        return None

    def _typed(self, events: Iterable[KeyEvent], ts: float) -> None:
        feed = self.decoder.feed
        data = b"".join([feed(e.type, e.code, e.value) for e in events])
        if data and self.on_raw is not None:
            self.on_raw(data, ts)
        self._deliver(self.parser.feed(data) if data else (), ts)

    def _forget_partial(self) -> None:
        self.parser.reset()
        self.decoder.reset()

    def _close(self) -> None:
        dev, self._dev = self._dev, None
        if dev is not None:
            with contextlib.suppress(OSError):
                dev.close()  # closing the descriptor also ends the grab
