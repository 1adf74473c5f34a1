"""What a page following the events has not taken yet, to drop one that stops reading.

A write that does not block proves nothing: the kernel takes megabytes into a socket's send
buffer before the transport's own buffer grows (issue 18: silent pages held 2.8 MB each for
minutes). So the bytes not taken are the transport's buffer plus the kernel's send queue
(``TIOCOUTQ``: bytes the peer has not acknowledged), and each message written is remembered
with its time until the peer has taken it whole.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import termios
from collections import deque


class Dropped(Exception):
    """The page is to be disconnected; the message says why."""


def kernel_unsent(fd: int) -> int:
    """Bytes in a TCP socket's send queue not yet acknowledged by the peer (0 if unknown)."""
    buf = array.array("i", [0])
    with contextlib.suppress(OSError):
        fcntl.ioctl(fd, termios.TIOCOUTQ, buf, True)
        return max(0, buf[0])
    return 0


class Backlog:
    """One page's messages not yet taken. ``check`` before each write, ``sent`` with it."""

    def __init__(self, transport: asyncio.BaseTransport | None, *, max_bytes: int,
                 max_age_s: float) -> None:
        self.transport = transport
        sock = transport.get_extra_info("socket") if transport is not None else None
        self.fd = sock.fileno() if sock is not None else -1
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s
        self.written = 0
        self._newest = 0
        self._marks: deque[tuple[int, float]] = deque()  # (end offset, when written)

    def pending(self) -> int:
        t = self.transport
        buffered = t.get_write_buffer_size() if isinstance(t, asyncio.WriteTransport) else 0
        return buffered + (kernel_unsent(self.fd) if self.fd >= 0 else 0)

    def check(self, now: float) -> None:
        """Raise Dropped if more than ``max_bytes`` are queued besides the newest message (a
        view larger than the ceiling is still delivered to a page that reads), or the oldest
        message not taken was written more than ``max_age_s`` ago, or the page is gone (a
        TLS transport once closed cannot even say how much it holds)."""
        if self.transport is not None and self.transport.is_closing():
            raise Dropped("the connection is closed")
        pending = self.pending()
        taken = self.written - pending
        marks = self._marks
        while marks and marks[0][0] <= taken:
            marks.popleft()
        if pending - self._newest > self.max_bytes:
            raise Dropped(f"{pending} bytes not taken")
        if marks and now - marks[0][1] > self.max_age_s:
            raise Dropped(f"a message not taken for {now - marks[0][1]:.1f} s")

    def sent(self, size: int, now: float) -> None:
        self.written += size
        self._newest = size
        self._marks.append((self.written, now))
