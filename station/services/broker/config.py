"""The ``broker:`` and ``tables:`` sections of every service that listens to many tables
(``station pit``, ``station archive``): where the broker is and where the tables' public
keys are. One parser for all of them, so the keys, checks, defaults and words are the same
(docs/configuration.md, "broker and tables").

``broker:`` takes the keys of a station's ``upstream:`` that say how to reach the broker and
is read and checked by the station's own code for them (station.kinds.outlets.mqtt's
``parse_link``, into the link's settings ``station.upstream.mqttlink.MqttLink``). Each error
is a ``ConfigError`` naming the file, the key and the fix; unknown keys are refused with the
nearest known one (station.settings.configsection).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from station.kinds.outlets import mqtt as mqtt_outlet
from station.settings.configsection import Section
from station.upstream.mqttlink import MqttLink, TlsSettings, effective_port

BROKER_KEYS: Final = ("host", "port", "prefix", "client_id", "credentials_file", "tls",
                      "keepalive_s", "session_expiry_s", "reconnect_max_s")
TABLES_KEYS: Final = ("keys_dir",)
KEYS_FIX: Final = ("the folder of the tables' public keys: <table>.pub or <table>.pub.pem "
                   "each, as `station keygen DIR --name TABLE` writes (`station fleet` "
                   "writes DIR/keys)")


@dataclass(frozen=True, slots=True)
class BrokerSettings:
    host: str = "localhost"
    port: int | None = None  # None: 1883, or 8883 with TLS
    prefix: str = "baccarat"
    client_id: str | None = None  # None: the service's own (``client_id_or``)
    # line 1 username, line 2 password; None: the unit's credential mqtt-credentials, if any
    credentials_file: Path | None = None
    tls: TlsSettings | None = None
    keepalive_s: int = 30
    session_expiry_s: int = 3600  # how long the broker queues for the service while away
    reconnect_max_s: int = 30  # paho's reconnect backoff doubles from 1 s up to this

    @property
    def effective_port(self) -> int:
        return effective_port(self.port, self.tls)

    @property
    def where(self) -> str:
        return f"{self.host}:{self.effective_port}"

    def client_id_or(self, default: str) -> str:
        """The configured client id, else the service's ``default`` (cut to MQTT's 64)."""
        return self.client_id or default[:64]

    def topic(self, table: str, leaf: str) -> str:
        return f"{self.prefix}/{table}/{leaf}"


@dataclass(frozen=True, slots=True)
class TablesSettings:
    keys_dir: Path  # <table>.pub or <table>.pub.pem per trusted table


def parse_broker(sec: Section, *, session_expiry_s: int) -> BrokerSettings:
    """``broker:``. ``session_expiry_s`` is the service's default for that key, the one
    default a service chooses: how long the broker keeps queueing for it while it is away
    (the pit 3600 s: an hour of a floor is enough to rebuild the tiles; the archive a day:
    every record matters)."""
    up = mqtt_outlet.parse_link(sec, MqttLink(session_expiry_s=session_expiry_s))
    return BrokerSettings(host=up.host, port=up.port, prefix=up.prefix, client_id=up.client_id,
                          credentials_file=up.credentials_file, tls=up.tls,
                          keepalive_s=up.keepalive_s, session_expiry_s=up.session_expiry_s,
                          reconnect_max_s=up.reconnect_max_s)


def parse_tables(sec: Section, *, keys_must_exist: bool = True) -> TablesSettings:
    """``tables:``: ``keys_dir``, relative to the config's folder, an existing folder (unless
    ``keys_must_exist`` is False: a command that reads no table's key, such as ``station pit
    pin``, works before the tables' keys are there)."""
    keys = sec.path_("keys_dir", None, KEYS_FIX)
    if keys is None:
        sec.fail(sec.key("keys_dir"), f"required: {KEYS_FIX}")
    folder = sec.path.parent / keys
    if keys_must_exist and not folder.is_dir():
        sec.fail(sec.key("keys_dir"), f"{folder}: not a folder; make it: {KEYS_FIX}")
    return TablesSettings(folder)


@dataclass(frozen=True, slots=True)
class ServiceSections:
    broker: BrokerSettings
    tables: TablesSettings
    own: Section  # the service's own section, its keys checked: the service reads it


def parse_service_config(path: Path, data: Any, own: str, own_keys: tuple[str, ...], *,
                         session_expiry_s: int, keys_must_exist: bool = True
                         ) -> ServiceSections:
    """A service's config file: ``broker:``, ``tables:`` and the service's own section
    ``own``, each required (a missing one is named with the shipped example,
    ``config/<own>.yaml``), nothing else. ``session_expiry_s``: see ``parse_broker``."""
    top = Section(path, "", data, ("broker", "tables", own))
    for name in ("broker", "tables", own):
        if name not in top.data:
            top.fail(name, f"missing section: see config/{own}.yaml for what {name}: holds")
    return ServiceSections(
        parse_broker(top.sub("broker", BROKER_KEYS), session_expiry_s=session_expiry_s),
        parse_tables(top.sub("tables", TABLES_KEYS), keys_must_exist=keys_must_exist),
        top.sub(own, own_keys))
