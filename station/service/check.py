"""``station check-config``: what a loaded config points at, opened and reported.

Each probe is short and never changes anything: a serial port is opened (exclusively, as the
station would) and closed, the broker gets one MQTT connect under a client id of its own (so
a running station's session is never taken over), a folder is tested for write access with
``os.access`` rather than by writing, and the metrics port is bound and released.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from station.config import StationConfig
from station.errors import ConfigError
from station.service.metrics import BIND

SERIAL_TIMEOUT_S = 0.5
BROKER_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class Finding:
    ok: bool
    what: str  # the config key or device
    detail: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.what}: {self.detail}"


def check(config: StationConfig) -> list[Finding]:
    return list(_all(config))


def _all(config: StationConfig) -> Iterator[Finding]:
    rules = config.rules
    pt = config.paytable
    # The bet guard (docs/paytables.md) is said only where it acts: a table with bets.
    guard = "" if pt is None else (
        f", bet guard {rules.bet_guard}" + ("" if rules.bet_guard == "off"
                                            else f" (limit {rules.bet_guard_max_rtp!r})"))
    yield Finding(True, "table", f"{rules.table}, {rules.decks} decks, paytable "
                  f"{'none' if pt is None else pt.path.name}"
                  f"{' ' + ','.join(pt.variants) if pt is not None and pt.variants else ''}"
                  f"{guard}")
    reader = config.reader
    if reader.type == "serial" and reader.port is not None:
        yield _serial("reader.port", reader.port, reader.baud, None)
    else:
        yield Finding(True, "reader", "simulated (no device)")
    cut = config.cut_card
    if cut.type == "modem_pin" and cut.port is not None:
        yield _serial("cut_card.port", cut.port, 9600, cut.pin)
    else:
        yield Finding(True, "cut_card", f"{cut.type} (no device of its own)")
    yield _writable("journal.path", Path(config.journal_path))
    for key, value in (("results.path", config.results_path),
                       ("results.announcements_path", config.announcements_path),
                       ("upstream.path", config.upstream.path
                        if config.upstream.type == "file" else None)):
        if value is not None and value != "-":
            yield _writable(key, Path(value))
    if config.recording_dir is not None:
        yield _writable("recording.dir", Path(config.recording_dir), folder=True)
    yield _signing_key(config)
    if config.upstream.type == "mqtt":
        yield _broker(config)
    if config.metrics_port is not None:
        yield _metrics(config.metrics_port)


def _serial(key: str, port: str, baud: int, pin: str | None) -> Finding:
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


def _writable(key: str, path: Path, folder: bool = False) -> Finding:
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


def _signing_key(config: StationConfig) -> Finding:
    from station.upstream.signing import load_signer  # noqa: PLC0415

    up = config.upstream
    try:
        load_signer(up.signing_key_file)
    except ConfigError as exc:
        if up.type == "file" and up.signing_key_file is None:
            return Finding(True, "upstream.signing_key_file", "none: the file upstream's "
                           "messages go out unsigned (the unit's credential signing-key, or "
                           "check-config --credentials DIR, gives one)")
        return Finding(False, "upstream.signing_key_file", str(exc))
    where = up.signing_key_file or "the credential signing-key"
    return Finding(True, "upstream.signing_key_file", f"{where}: an Ed25519 key")


def _broker(config: StationConfig) -> Finding:
    import paho.mqtt.client as paho  # noqa: PLC0415
    from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion  # noqa: PLC0415

    from station.upstream.mqtt import CREDENTIAL_NAME, read_credentials  # noqa: PLC0415

    up = config.upstream
    where = f"{up.host}:{up.effective_port}"
    client = paho.Client(CallbackAPIVersion.VERSION2,
                         client_id=f"{up.client_id_for(config.rules.table)}-check"[:64],
                         protocol=MQTTProtocolVersion.MQTTv5)
    try:
        creds = up.credentials_file
        folder = os.environ.get("CREDENTIALS_DIRECTORY")
        if creds is None and folder and (Path(folder) / CREDENTIAL_NAME).exists():
            creds = Path(folder) / CREDENTIAL_NAME
        if creds is not None:
            client.username_pw_set(*read_credentials(creds))
        if up.tls is not None:
            t = up.tls
            client.tls_set(ca_certs=str(t.ca_file) if t.ca_file else None,
                           certfile=str(t.cert_file) if t.cert_file else None,
                           keyfile=str(t.key_file) if t.key_file else None)
    except (ConfigError, OSError, ValueError) as exc:
        return Finding(False, "upstream", f"{where}: {exc}")
    answered = threading.Event()
    reason: list[str] = []

    def on_connect(client: Any, userdata: Any, flags: Any, code: Any, props: Any) -> None:
        if code.is_failure:
            reason.append(str(code))
        answered.set()

    client.on_connect = on_connect
    try:
        client.connect(up.host, up.effective_port, keepalive=10)
        client.loop_start()
        try:
            if not answered.wait(BROKER_TIMEOUT_S):
                return Finding(False, "upstream", f"{where}: no answer to CONNECT in "
                               f"{BROKER_TIMEOUT_S:g} s; check upstream.host/port and tls")
        finally:
            with contextlib.suppress(Exception):
                client.disconnect()
            client.loop_stop()
    except (OSError, ValueError) as exc:
        return Finding(False, "upstream", f"{where}: cannot connect ({exc}); check "
                       "upstream.host and upstream.port, and that the broker runs")
    if reason:
        return Finding(False, "upstream", f"{where}: the broker refused the connection "
                       f"({reason[0]}); check the credentials (mqtt-credentials) and tls")
    return Finding(True, "upstream", f"{where}: the broker accepted an MQTT connection")


def _metrics(port: int) -> Finding:
    if port == 0:
        return Finding(True, "metrics.port", "0: a free port is picked at each start")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((BIND, port))
        except OSError as exc:
            return Finding(False, "metrics.port", f"{BIND}:{port} cannot be bound "
                           f"({exc.strerror or exc}); is a station already running? else "
                           "choose another port")
    return Finding(True, "metrics.port", f"{BIND}:{port} is free")
