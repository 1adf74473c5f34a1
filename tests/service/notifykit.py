"""A real sd_notify socket, as systemd holds it: an AF_UNIX datagram socket we read."""

from __future__ import annotations

import socket
import time
from pathlib import Path


class NotifySocket:
    """Bound at ``folder/notify`` (or, with ``abstract``, at an abstract name). Each datagram
    is kept with the monotonic time it was read."""

    def __init__(self, folder: Path, abstract: bool = False) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            name = f"station-test-{id(self):x}-{time.monotonic_ns()}"
            self.sock.bind(b"\0" + name.encode())
            self.address = "@" + name
        else:
            path = folder / "notify"
            self.sock.bind(str(path))
            self.address = str(path)
        self.received: list[tuple[float, dict[str, str]]] = []

    def env(self, watchdog_usec: int | None = None) -> dict[str, str]:
        env = {"NOTIFY_SOCKET": self.address}
        if watchdog_usec is not None:
            env["WATCHDOG_USEC"] = str(watchdog_usec)
        return env

    def read(self, timeout_s: float) -> dict[str, str] | None:
        self.sock.settimeout(timeout_s)
        try:
            data = self.sock.recv(4096)
        except TimeoutError:
            return None
        fields = dict(line.split("=", 1) for line in data.decode().splitlines())
        self.received.append((time.monotonic(), fields))
        return fields

    def wait_for(self, key: str, timeout_s: float = 30.0) -> dict[str, str]:
        """The first datagram with ``key`` (reading and keeping every one before it)."""
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            fields = self.read(left)
            if fields is not None and key in fields:
                return fields
        raise AssertionError(f"no {key} within {timeout_s} s; got {self.received}")

    def collect(self, seconds: float) -> list[tuple[float, dict[str, str]]]:
        """Every datagram read in the next ``seconds``."""
        start = len(self.received)
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.read(left)
        return self.received[start:]

    def close(self) -> None:
        self.sock.close()


def pings(items: list[tuple[float, dict[str, str]]]) -> list[float]:
    return [t for t, f in items if f.get("WATCHDOG") == "1"]
