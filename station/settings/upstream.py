"""The ``upstream:`` section of the station config, as the publishers take it.

Parsing the YAML into this is the config module's job; ``problems()`` lists what is wrong
with a set of values (key, what and the fix), so the parser only adds the file name.
Secrets are never values here, only the files that hold them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

TYPES: Final = ("file", "mqtt")  # the built-in outlets (station.kinds.registry has them all)
_TOPIC_WORD = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
KEY_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
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
class UpstreamSettings:
    type: str = "file"  # an outlet kind of station.kinds.registry
    # type: file
    path: str = "var/upstream.jsonl"  # JSON Lines, one signed message per line; "-" stdout
    # type: mqtt
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
    # Publish every committed journal record on <prefix>/<table>/journal for an archive
    # (station.upstream.mirror); off by default: it is for a table that has an archive.
    mirror: bool = False
    # both types
    signing_key_file: Path | None = None  # None: $CREDENTIALS_DIRECTORY/signing-key
    # commands (type: mqtt)
    command_keys: Mapping[str, Path] = field(default_factory=dict)  # name -> public key PEM
    command_window_s: float = 30.0
    command_skew_s: float = 5.0
    # The settings of an outlet kind registered beside the built-in ones, by kind name.
    own: Mapping[str, Any] = field(default_factory=dict)

    @property
    def effective_port(self) -> int:
        return effective_port(self.port, self.tls)

    def client_id_for(self, table: str) -> str:
        return self.client_id or f"station-{table}"

    def base_topic(self, table: str) -> str:
        return f"{self.prefix}/{table}"

    def problems(self, types: Collection[str] = TYPES) -> list[tuple[str, str]]:
        """``(key, message)`` for every invalid value; empty when all is well. ``types``: the
        outlet kinds there are (the config's parser passes the registered ones)."""
        out: list[tuple[str, str]] = []
        if self.type not in types:
            out.append(("type", f"{self.type!r} is not one of {', '.join(types)}"))
        if not self.path:
            out.append(("path", "must name a file, or '-' for stdout"))
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
        for name in self.command_keys:
            if not KEY_NAME.match(name):
                out.append((f"command_keys.{name}", "a key's name is 1-64 letters, digits, "
                                                    "'_', '-' or '.'; it is who sent a command"))
        if self.command_window_s <= 0:
            out.append(("command_window_s", "must be more than 0"))
        if self.command_skew_s < 0:
            out.append(("command_skew_s", "must be 0 or more"))
        return out
