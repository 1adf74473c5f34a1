"""A simulated shoe scanner that writes real bytes into a pseudo-terminal.

The serial driver opens the pty's slave end (or a stable symlink to it, like
``/dev/serial/by-id/...``) exactly as it opens a real scanner, so the real driver and the
real parser run unchanged; this side writes frames into the master end, split into chunks,
with noise when asked. ``unplug`` removes the link and closes the pty (the driver's read then
fails as with a pulled USB cable); ``replug`` makes a new pty behind the same link.

POSIX only (``os.openpty``).
"""

from __future__ import annotations

import os
import random
import time
import tty
from collections.abc import Iterable
from pathlib import Path

TERMINATORS = {"cr": b"\r", "lf": b"\n", "crlf": b"\r\n", "tab": b"\t"}


def encode(code: str, framing: str = "cr", prefix: str = "", suffix: str = "") -> bytes:
    """One code framed as a scanner sends it."""
    body = (prefix + code + suffix).encode()
    if framing == "stx_etx":
        return b"\x02" + body + b"\x03"
    return body + TERMINATORS[framing]


def chunks(data: bytes, rng: random.Random, max_chunk: int = 7) -> list[bytes]:
    """``data`` cut at random places into pieces of 1..``max_chunk`` bytes."""
    out: list[bytes] = []
    i = 0
    while i < len(data):
        n = rng.randint(1, max_chunk)
        out.append(data[i:i + n])
        i += n
    return out


class PtyScanner:
    """The scanner's end of a pty. ``path`` is what the driver opens."""

    def __init__(self, link: Path | None = None) -> None:
        self.link = link
        self._master: int | None = None
        self._slave: int | None = None
        self.device = ""
        self.replug()

    @property
    def path(self) -> str:
        return str(self.link) if self.link is not None else self.device

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def replug(self) -> None:
        """A new pty (as a new USB device would be) behind the same link."""
        if self._master is not None:
            raise RuntimeError("already plugged")
        master, slave = os.openpty()
        # Raw before any byte is written: a cooked pty would turn CR into LF and echo.
        tty.setraw(slave)
        self._master, self._slave = master, slave
        self.device = os.ttyname(slave)
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self.device)
            tmp.replace(self.link)  # atomic: the driver never sees a half-made link

    def unplug(self) -> None:
        """The cable is pulled: the link goes (udev removes it) and the pty closes."""
        if self.link is not None:
            self.link.unlink(missing_ok=True)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def close(self) -> None:
        if self.plugged:
            self.unplug()

    def write(self, data: bytes) -> None:
        """Write every byte of ``data`` (a pty may take fewer in one call)."""
        if self._master is None:
            raise RuntimeError("unplugged")
        view = memoryview(data)
        while view:
            n = os.write(self._master, view)
            view = view[n:]

    def send(self, codes: Iterable[str], *, framing: str = "cr", rng: random.Random | None = None,
             max_chunk: int = 7, pause_s: float = 0.0, prefix: str = "", suffix: str = "") -> None:
        """Write ``codes`` framed; with ``rng``, in random chunks with ``pause_s`` between."""
        data = b"".join(encode(c, framing, prefix, suffix) for c in codes)
        if rng is None:
            self.write(data)
            return
        for piece in chunks(data, rng, max_chunk):
            self.write(piece)
            if pause_s:
                time.sleep(rng.uniform(0, pause_s))

    def __enter__(self) -> PtyScanner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
