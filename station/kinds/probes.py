"""What ``check-config`` reports, and the probes more than one kind uses.

Each probe is short and never changes anything: a serial port is opened (exclusively, as the
station would) and closed, and a folder is tested for write access with ``os.access`` rather
than by writing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

SERIAL_TIMEOUT_S = 0.5


@dataclass(frozen=True, slots=True)
class Finding:
    ok: bool
    what: str  # the config key or device
    detail: str
    warn: bool = False  # works, but not as it should in production (a broker in clear)

    def line(self) -> str:
        word = "FAIL" if not self.ok else "WARN" if self.warn else "ok  "
        return f"{word} {self.what}: {self.detail}"


def clear_broker(key: str, where: str, tls: object | None) -> Finding:
    """Whether a config talks to its broker in clear: anyone on the network then reads
    every message and the credentials, and a locked broker (docs/operations.md, "The
    studio's broker") cannot tell its parties apart by certificate."""
    if tls is not None:
        return Finding(True, key, f"{where}: TLS")
    return Finding(True, key, f"{where}: in clear (no TLS): the broker's traffic and any "
                   "password can be read on the network; set tls: {ca_file, cert_file, "
                   "key_file} with the studio's certificates (`station broker-config`)",
                   warn=True)


def serial_port(key: str, port: str, baud: int, pin: str | None) -> Finding:
    """Open ``port`` as the station would; with ``pin``, read that modem status line."""
    import serial  # noqa: PLC0415 - pyserial only for a config that names a port

    try:
        with serial.serial_for_url(port, baudrate=baud, timeout=SERIAL_TIMEOUT_S,
                                   exclusive=True) as s:
            if pin is None:
                return Finding(True, key, f"{port} opened at {baud} baud")
            state = {"cts": s.cts, "dsr": s.dsr, "cd": s.cd, "ri": s.ri}[pin]
            return Finding(True, key, f"{port} opened; {pin.upper()} is "
                           f"{'on' if state else 'off'}")
    except (serial.SerialException, OSError, ValueError) as exc:
        hint = ("check the cable and the udev rule (ls -l /dev/serial/by-id/), and that no "
                "other program holds the port (the station itself, or station monitor)")
        return Finding(False, key, f"{port} cannot be opened ({exc}); {hint}")


def _existing_ancestor(path: Path) -> Path:
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def writable(key: str, path: Path, folder: bool = False) -> Finding:
    """Whether the station's user may write ``path`` (a file, or with ``folder`` a folder),
    creating what is missing."""
    target = path if folder else path.parent
    try:
        if path.exists() and not folder:
            ok = os.access(path, os.W_OK) and path.is_file()
            where = path
        else:
            where = _existing_ancestor(target)
            ok = where.is_dir() and os.access(where, os.W_OK | os.X_OK)
    except OSError as exc:
        return Finding(False, key, f"{path}: {exc.strerror or exc}")
    if ok:
        return Finding(True, key, f"{path} can be written")
    return Finding(False, key, f"{path}: {where} cannot be written by this user; make it "
                   "writable by the station's user (the unit's StateDirectory= is "
                   "/var/lib/dealer-station)")
