"""USB HID scanners at the true boundary: the kernel's ``input_event`` records (and hidraw
reports) written into a FIFO and read by the real reader through python-evdev.

No input device can be made on the test machines (no /dev/uinput), so the FIFO stands where
the event node would: ``FifoDevice`` is python-evdev's own ``InputDevice`` minus the ioctls
a FIFO cannot answer (the device's name and ids), its ``read`` the library's, and it records
the calls the reader makes on it, so a test sees the grab come before the first read.

``us_keys`` types text as a US keyboard does, from the kernel's key codes re-typed here from
``linux/input-event-codes.h`` (not read from the layout the reader uses), with the
``EV_MSC``/``MSC_SCAN`` and ``SYN_REPORT`` records a real keyboard sends around each key.
"""

from __future__ import annotations

import contextlib
import os
import queue
import struct
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import evdev

from drivers.base import EventSource
from drivers.events import InputEvent

# struct input_event: struct timeval (two native longs), __u16 type, __u16 code, __s32 value.
EVENT = struct.Struct("llHHi")
EV_SYN, EV_KEY, EV_MSC = 0, 1, 4
MSC_SCAN = 4
SHIFT, CAPS, ENTER, KPENTER, TAB = 42, 58, 28, 96, 15
# The US layout's keys, re-typed: the characters of each row, unshifted and shifted, from
# the row's first key code.
_ROWS = (
    (2, "1234567890-=", "!@#$%^&*()_+"),
    (16, "qwertyuiop[]", "QWERTYUIOP{}"),
    (30, "asdfghjkl;'`", 'ASDFGHJKL:"~'),
    (43, "\\zxcvbnm,./", "|ZXCVBNM<>?"),
    (57, " ", " "),
)
US: dict[str, tuple[int, bool]] = {}
for first, plain, shifted in _ROWS:
    for i, (p, s) in enumerate(zip(plain, shifted, strict=True)):
        US.setdefault(p, (first + i, False))
        US.setdefault(s, (first + i, True))
PRINTABLE = "".join(chr(c) for c in range(0x21, 0x7F))  # every printable ASCII but space


def record(etype: int, code: int, value: int, ts: float = 1_764_633_600.0) -> bytes:
    sec = int(ts)
    return EVENT.pack(sec, int((ts - sec) * 1e6), etype, code, value)


def key(code: int, value: int, ts: float = 1_764_633_600.0) -> list[bytes]:
    """One key event as a keyboard sends it: its scan code, the key, a report."""
    return [record(EV_MSC, MSC_SCAN, 0x70000 + code, ts), record(EV_KEY, code, value, ts),
            record(EV_SYN, 0, 0, ts)]


def tap(code: int, shift: bool = False) -> list[bytes]:
    out = key(SHIFT, 1) if shift else []
    out += key(code, 1) + key(code, 0)
    return out + (key(SHIFT, 0) if shift else [])


def us_keys(text: str, end: int | None = ENTER) -> list[bytes]:
    """``text`` typed on a US keyboard, then the terminator key (None: none)."""
    out: list[bytes] = []
    for ch in text:
        code, shift = US[ch]
        out += tap(code, shift)
    if end is not None:
        out += tap(end)
    return out


class FifoDevice(evdev.InputDevice[str]):
    """python-evdev's InputDevice over a FIFO: no ioctls (a FIFO has none), calls recorded."""

    def __init__(self, path: str, calls: list[str]) -> None:  # no super(): its ioctls
        self.path = path
        self.calls = calls
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        calls.append("open")

    def grab(self) -> None:
        self.calls.append("grab")  # EVIOCGRAB: a FIFO cannot take the ioctl

    def read(self) -> Iterator[Any]:
        self.calls.append("read")
        return super().read()

    def close(self) -> None:
        if self.fd >= 0:
            self.calls.append("close")
            os.close(self.fd)
            self.fd = -1


class Fifo:
    """A FIFO standing where the scanner's node would; ``opener`` for the reader."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path)
        self.calls: list[str] = []
        self._w = -1

    def opener(self, path: str) -> FifoDevice:
        return FifoDevice(path, self.calls)

    def connect(self) -> None:
        """Open the writing end (after the reader has opened the reading end)."""
        self._w = os.open(self.path, os.O_WRONLY)

    def write(self, records: Sequence[bytes], chunk: int = 160) -> None:
        """Whole records in writes of at most ``chunk`` records (each under PIPE_BUF, so a
        write is atomic and a read always gets whole records, as from an event node)."""
        if self._w < 0:
            self.connect()
        for i in range(0, len(records), chunk):
            os.write(self._w, b"".join(records[i:i + chunk]))

    def write_bytes(self, data: bytes) -> None:
        if self._w < 0:
            self.connect()
        os.write(self._w, data)

    def unplug(self) -> None:
        """Close the writing end: the reader sees the end of the file, as a pulled plug."""
        if self._w >= 0:
            os.close(self._w)
            self._w = -1

    def close(self) -> None:
        self.unplug()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


class Heard:
    """What a driver posted, in order."""

    def __init__(self) -> None:
        self.q: queue.Queue[tuple[float, InputEvent]] = queue.Queue()
        self.lock = threading.Lock()

    def __call__(self, source: EventSource, event: InputEvent) -> None:
        self.q.put((time.perf_counter(), event))

    def next(self, timeout: float = 5.0) -> InputEvent:
        try:
            return self.q.get(timeout=timeout)[1]
        except queue.Empty:
            raise AssertionError(f"nothing posted within {timeout} s") from None

    def take(self, n: int, timeout: float = 5.0) -> list[InputEvent]:
        return [self.next(timeout) for _ in range(n)]

    def until_quiet(self, seconds: float = 0.3) -> list[InputEvent]:
        out = []
        while True:
            try:
                out.append(self.q.get(timeout=seconds)[1])
            except queue.Empty:
                return out
