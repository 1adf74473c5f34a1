"""sd_notify: the few datagrams systemd reads from a ``Type=notify`` service.

The protocol is one ``AF_UNIX``/``SOCK_DGRAM`` datagram of newline-separated ``KEY=value``
lines to the socket named in ``NOTIFY_SOCKET`` (a path, or ``@name`` for Linux's abstract
namespace). It is a dozen lines of the standard library, so no library is taken on for it:
the maintained ones either wrap libsystemd (a C build on every PC) or do exactly this.

A lost datagram must never stop the table: a send that fails is logged once and the station
goes on (systemd then restarts it for a missing READY or watchdog ping, which is right).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)

MAX_STATUS_CHARS = 400  # systemctl status shows one line; a pause reason can be long


def socket_address(value: str) -> str | bytes:
    """The address to send to: ``@name`` is the abstract socket ``\\0name``."""
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    return value


class Notifier:
    """Sends notifications to one socket. Not thread-safe: the station loop owns it (and the
    signal handler, which Python runs on that same thread)."""

    def __init__(self, address: str) -> None:
        if not address or not (address.startswith(("/", "@"))):
            raise ValueError(f"NOTIFY_SOCKET {address!r} is neither a path nor @name")
        self.address = address
        self._sock: socket.socket | None = None
        self._failed = False
        self.sent = 0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Notifier | None:
        """The notifier systemd asked for, or None when not run by a ``Type=notify`` unit
        (or when ``NOTIFY_SOCKET`` is unusable, which is logged)."""
        value = (os.environ if env is None else env).get("NOTIFY_SOCKET", "")
        if not value:
            return None
        try:
            return cls(value)
        except ValueError as exc:
            log.warning("sd_notify: %s; systemd will not hear from the station", exc)
            return None

    def send(self, *lines: str) -> bool:
        """Send ``KEY=value`` lines as one datagram; whether it went."""
        data = "\n".join(lines).encode("utf-8", "replace")
        try:
            if self._sock is None:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                try:
                    sock.connect(socket_address(self.address))
                    # Never wait on systemd: a full socket buffer (a manager that stopped
                    # reading) would hang the loop that owns the table, and with it the stop.
                    # A datagram that cannot go now is dropped; the next one says it again.
                    sock.setblocking(False)
                except OSError:
                    sock.close()
                    raise
                self._sock = sock
            self._sock.send(data)
        except OSError as exc:
            if not self._failed:
                log.warning("sd_notify: cannot send to %s (%s); systemd will not hear from "
                            "the station", self.address, exc)
            self._failed = True
            self.close()  # reconnect at the next send: systemd may have been restarted
            return False
        if self._failed:
            log.info("sd_notify: %s reachable again", self.address)
            self._failed = False
        self.sent += 1
        return True

    def ready(self, status: str) -> bool:
        return self.send("READY=1", f"STATUS={one_line(status)}", f"MAINPID={os.getpid()}")

    def status(self, status: str) -> bool:
        return self.send(f"STATUS={one_line(status)}")

    def stopping(self, status: str) -> bool:
        return self.send("STOPPING=1", f"STATUS={one_line(status)}")

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def one_line(text: str) -> str:
    """A STATUS value: one line (a newline would start a new assignment), bounded."""
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_STATUS_CHARS else flat[:MAX_STATUS_CHARS - 3] + "..."
