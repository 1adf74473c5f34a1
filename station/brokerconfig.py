"""The ``broker:`` and ``tables:`` sections shared by the services that listen to many
tables (``station archive``; the pit's config has the same two sections): where the broker
is, as the station's ``upstream:`` says it, and where the tables' public keys are.

Every error is a ``ConfigError`` naming the file, the key and the fix; unknown keys are
refused with the nearest known one (``station.configsection``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from station.configsection import Section, secret_path
from station.upstream.settings import TlsSettings, UpstreamSettings

BROKER_KEYS: Final = ("host", "port", "prefix", "client_id", "credentials_file", "tls",
                      "keepalive_s", "session_expiry_s")
TABLES_KEYS: Final = ("keys_dir",)


@dataclass(frozen=True, slots=True)
class BrokerSettings:
    host: str = "localhost"
    port: int | None = None  # None: 1883, or 8883 with TLS
    prefix: str = "baccarat"
    client_id: str | None = None  # None: the service's own default
    credentials_file: Path | None = None  # line 1 username, line 2 password
    tls: TlsSettings | None = None
    keepalive_s: int = 30
    session_expiry_s: int = 86400  # how long the broker queues for the service while away

    @property
    def effective_port(self) -> int:
        if self.port is not None:
            return self.port
        return 8883 if self.tls is not None else 1883

    def topic(self, table: str, leaf: str) -> str:
        return f"{self.prefix}/{table}/{leaf}"


@dataclass(frozen=True, slots=True)
class TablesSettings:
    keys_dir: Path  # <table>.pub.pem or <table>.pub per table (station keygen writes them)


def parse_broker(sec: Section) -> BrokerSettings:
    d = BrokerSettings()
    tls_raw = sec.data.get("tls", False)
    tls: TlsSettings | None
    if tls_raw is True:
        tls = TlsSettings()
    elif tls_raw is False or tls_raw is None:
        tls = None
    else:
        t = sec.sub("tls", ("ca_file", "cert_file", "key_file"))
        tls = TlsSettings(*(None if (v := t.path_(k, None, "a PEM file")) is None
                            else secret_path(t, k, v)
                            for k in ("ca_file", "cert_file", "key_file")))
    creds = sec.path_("credentials_file", None, "a file next to the config: the user name "
                      "on line 1, the password on line 2")
    port = sec.data.get("port")
    out = BrokerSettings(
        host=sec.str_("host", d.host, "the broker's host name or address") or d.host,
        port=None if port is None else sec.int_("port", None, 1, "a TCP port", 65535),
        prefix=sec.str_("prefix", d.prefix, "the stations' upstream.prefix") or d.prefix,
        client_id=sec.str_("client_id", None, "1-64 characters, or null"),
        credentials_file=None if creds is None else secret_path(sec, "credentials_file", creds),
        tls=tls,
        keepalive_s=sec.int_("keepalive_s", d.keepalive_s, 5, "a whole number of seconds",
                             3600) or d.keepalive_s,
        session_expiry_s=sec.int_("session_expiry_s", d.session_expiry_s, 0,
                                  "a whole number of seconds (0-604800)", 7 * 86400) or 0,
    )
    # The station's own checks of the same values, with the same words.
    same = UpstreamSettings(type="mqtt", host=out.host, port=out.port, prefix=out.prefix,
                            client_id=out.client_id, tls=out.tls)
    for key, problem in same.problems(types=("mqtt",)):
        sec.fail(sec.key(key), problem)
    return out


def parse_tables(sec: Section) -> TablesSettings:
    keys = sec.path_("keys_dir", None, "the folder of the tables' public keys "
                     "(<table>.pub.pem, as `station keygen DIR --name TABLE` writes)")
    if keys is None:
        sec.fail(sec.key("keys_dir"), "missing: name the folder of the tables' public keys "
                 "(<table>.pub.pem, as `station keygen DIR --name TABLE` writes)")
    folder = sec.path.parent / keys
    if not folder.is_dir():
        sec.fail(sec.key("keys_dir"), f"{folder}: not a folder; make it, with one public key "
                 "per table")
    return TablesSettings(folder)
