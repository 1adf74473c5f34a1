"""What every paho client of ours does the same before it connects: the broker's user name
and password (from the config's file, or the systemd credential ``mqtt-credentials``) and
TLS. Used by the station's publisher (station.upstream.mqtt), its broker probe, ``station
watch`` and the services that listen to many tables (station.services.broker.client)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import paho.mqtt.client as paho

from station.errors import ConfigError
from station.upstream.mqttlink import TlsSettings

CREDENTIAL_NAME = "mqtt-credentials"  # systemd: LoadCredential=mqtt-credentials:FILE


def read_credentials(path: Path, key: str = "upstream.credentials_file") -> tuple[str, str]:
    """``(username, password)`` from a file: the first line is the user name, the second
    the password (the rest of that line, spaces kept). Raises ConfigError naming ``key``."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"{key} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{key} {path}: not UTF-8 text") from None
    if len(lines) < 2 or not lines[0]:
        raise ConfigError(f"{key} {path}: expected the user name on the first line and the "
                          "password on the second")
    return lines[0], lines[1]


def credentials_file(path: Path | None,
                     environ: Mapping[str, str] | None = None) -> Path | None:
    """The file the config names; without one, the unit's credential ``mqtt-credentials``
    when systemd passed it (``$CREDENTIALS_DIRECTORY``); else None (no user name)."""
    if path is not None:
        return path
    env = os.environ if environ is None else environ
    folder = env.get("CREDENTIALS_DIRECTORY")
    if folder and (Path(folder) / CREDENTIAL_NAME).exists():
        return Path(folder) / CREDENTIAL_NAME
    return None


def apply_tls(client: paho.Client, tls: TlsSettings | None, key: str) -> None:
    """TLS as the config says (None: plain TCP). Raises ConfigError naming ``key``."""
    if tls is None:
        return
    try:
        client.tls_set(ca_certs=str(tls.ca_file) if tls.ca_file else None,
                       certfile=str(tls.cert_file) if tls.cert_file else None,
                       keyfile=str(tls.key_file) if tls.key_file else None)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{key}: {exc}") from None
