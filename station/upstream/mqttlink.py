"""How to reach an MQTT broker: the settings of the link the station's publisher
(``station.upstream.mqtt``) opens, and that the services of many tables open the same way
(``station.services.broker``). Data and its checks only, no paho, so loading a config never
imports the client.

Declared beside the code that reads it, as each kind's own settings are: the ``mqtt``
outlet (``station.kinds.outlets.mqtt``) holds one of these with its own keys (commands,
mirror). ``problems()`` lists what is wrong (key, what and the fix); the parser adds the
file name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

_TOPIC_WORD = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
MAX_INFLIGHT_LIMIT: Final = 1000


@dataclass(frozen=True, slots=True)
class TlsSettings:
    """``tls: true`` is ``TlsSettings()``: the system's CA store, no client certificate."""

    ca_file: Path | None = None
    cert_file: Path | None = None  # client certificate (PEM), with key_file
    key_file: Path | None = None


def effective_port(port: int | None, tls: TlsSettings | None) -> int:
    """The port the config gives, else MQTT's: 1883, or 8883 with TLS."""
    if port is not None:
        return port
    return 8883 if tls is not None else 1883


@dataclass(frozen=True, slots=True)
class MqttLink:
    host: str = "localhost"
    port: int | None = None  # None: 1883, or 8883 with TLS
    prefix: str = "baccarat"
    client_id: str | None = None  # None: "station-<table id>"
    credentials_file: Path | None = None  # line 1 username, line 2 password
    tls: TlsSettings | None = None
    keepalive_s: int = 30
    session_expiry_s: int = 3600  # how long the broker keeps the session while offline
    max_inflight: int = 100  # messages sent and not yet acknowledged
    reconnect_max_s: int = 30  # reconnect backoff doubles from 1 s up to this

    @property
    def effective_port(self) -> int:
        return effective_port(self.port, self.tls)

    def client_id_for(self, table: str) -> str:
        return self.client_id or f"station-{table}"

    def base_topic(self, table: str) -> str:
        return f"{self.prefix}/{table}"

    def problems(self) -> list[tuple[str, str]]:
        """``(key, message)`` for every invalid value; empty when all is well."""
        out: list[tuple[str, str]] = []
        if not self.host:
            out.append(("host", "must name the broker (a host name or an IP address)"))
        if self.port is not None and not 1 <= self.port <= 65535:
            out.append(("port", f"{self.port} is not a TCP port (1-65535)"))
        if not _TOPIC_WORD.match(self.prefix):
            out.append(("prefix", f"{self.prefix!r}: use letters, digits, '_', '-', '.' and "
                                  "'/' between words (no '+', '#' or empty levels)"))
        if self.client_id is not None and not 1 <= len(self.client_id) <= 64:
            out.append(("client_id", "must be 1-64 characters"))
        if self.tls is not None and (self.tls.cert_file is None) != (self.tls.key_file is None):
            out.append(("tls", "cert_file and key_file go together (a client certificate "
                               "needs its key)"))
        for key, value, low in (("keepalive_s", self.keepalive_s, 5),
                                ("session_expiry_s", self.session_expiry_s, 0),
                                ("max_inflight", self.max_inflight, 1),
                                ("reconnect_max_s", self.reconnect_max_s, 1)):
            if value < low:
                out.append((key, f"must be at least {low}, got {value}"))
        if self.max_inflight > MAX_INFLIGHT_LIMIT:
            out.append(("max_inflight", f"at most {MAX_INFLIGHT_LIMIT}"))
        return out
