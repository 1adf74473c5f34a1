"""What the kernel says about a station under a socket flood: its descriptors, its memory and
the server side of each of its TCP connections (``/proc``, Linux)."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from pathlib import Path


def fds(pid: int) -> int:
    """How many descriptors ``pid`` has open."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


# /proc/net/tcp states
ESTABLISHED, LISTEN = "01", "0A"


def server_side(port: int) -> dict[int, tuple[str, int]]:
    """The server's ends of the loopback connections to ``port``: the client's port ->
    (state, bytes in the server's send queue)."""
    out: dict[int, tuple[str, int]] = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            local, remote, st = f[1], f[2], f[3]
            if int(local.rsplit(":", 1)[1], 16) != port or st == LISTEN:
                continue
            tx = int(f[4].split(":")[0], 16)
            out[int(remote.rsplit(":", 1)[1], 16)] = (st, tx)
    return out


def wait_for(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def connect(port: int, *, rcvbuf: int | None = None, timeout_s: float = 5.0,
            source: str = "127.0.0.1") -> socket.socket:
    s = socket.socket()
    if rcvbuf is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout_s)
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        raise
    return s


def closed_by_peer(s: socket.socket) -> bool:
    """True once the server has closed ``s`` (EOF or reset); reads what is there."""
    s.setblocking(False)
    try:
        while True:
            data = s.recv(1 << 16)
            if not data:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True
