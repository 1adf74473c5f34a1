"""STUDIO.yaml: the parties of one studio's broker, for ``station broker-config`` (issue 32):
its tables, pits, archives and game servers, how the broker is reached (a TLS listener) and
how each party proves who it is (its client certificate, or a password file made with
``mosquitto_passwd``), and the bridges to other brokers.

Each party's identity on the broker is its default MQTT client id, so one name serves the
certificate's common name, the password file's user name and the ACL: ``station-<table>``,
``pit-<name>``, ``archive-<name>``, ``game-<name>`` and, for a bridge, ``bridge-<name>``.
The role is part of the name, so a table called ``pit`` is never taken for the pit.

Read and checked whole; every error is a ``ConfigError`` naming the file, the key and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from station.game.limits import TABLE_ID_FORM, table_id_problem
from station.settings.configsection import Section
from station.settings.upstream import KEY_NAME
from station.settings.yamlload import load_yaml
from station.upstream.mqttlink import MqttLink

TOP_KEYS: Final = ("broker", "tables", "pits", "archives", "game_servers", "bridges",
                   "bridged_from")
BROKER_KEYS: Final = ("listen", "port", "prefix", "identity", "ca_file", "cert_file",
                      "key_file", "password_file", "persistence_dir")
BRIDGE_KEYS: Final = ("name", "address", "port", "ca_file", "cert_file", "key_file", "out",
                      "in")
PEER_KEYS: Final = ("name", "out", "in")
IDENTITIES: Final = ("certificate", "password")
# What a bridge may carry: every leaf a table's topics have.
LEAVES: Final = ("events", "status", "journal", "commands", "archive")
PARTIES_MAX: Final = 2000
ROLES: Final = {"tables": "station", "pits": "pit", "archives": "archive",
                "game_servers": "game"}


@dataclass(frozen=True, slots=True)
class StudioBroker:
    listen: str
    port: int
    prefix: str
    identity: str  # certificate | password
    ca_file: Path
    cert_file: Path
    key_file: Path
    password_file: Path | None
    persistence_dir: Path | None


@dataclass(frozen=True, slots=True)
class Bridge:
    """A connection from this broker to another (``bridges:``): the leaves it forwards
    there (``out``) and takes from there (``in``), for every table."""

    name: str
    host: str
    port: int
    ca_file: Path
    cert_file: Path
    key_file: Path
    out: tuple[str, ...]
    into: tuple[str, ...]

    @property
    def identity(self) -> str:
        return f"bridge-{self.name}"


@dataclass(frozen=True, slots=True)
class Peer:
    """Another broker's bridge that connects to this one (``bridged_from:``): it publishes
    here what it forwards (its ``out``) and reads here what it takes (its ``in``)."""

    name: str
    out: tuple[str, ...]
    into: tuple[str, ...]

    @property
    def identity(self) -> str:
        return f"bridge-{self.name}"


@dataclass(frozen=True, slots=True)
class Studio:
    path: Path
    broker: StudioBroker
    tables: tuple[str, ...]
    pits: tuple[str, ...]
    archives: tuple[str, ...]
    game_servers: tuple[str, ...]
    bridges: tuple[Bridge, ...]
    peers: tuple[Peer, ...]

    def identities(self) -> list[str]:
        """Every party that may connect, by its identity on the broker."""
        return ([f"station-{t}" for t in self.tables] + [f"pit-{p}" for p in self.pits]
                + [f"archive-{a}" for a in self.archives]
                + [f"game-{g}" for g in self.game_servers]
                + [p.identity for p in self.peers])


def load_studio(path: Path) -> Studio:
    """Read and check STUDIO.yaml; raises ConfigError naming the file, key and fix."""
    return parse_studio(path, load_yaml(path, "studio config"))


def parse_studio(path: Path, data: Any) -> Studio:
    top = Section(path, "", data, TOP_KEYS)
    if "broker" not in top.data:
        top.fail("broker", "missing section: see config/studio.yaml for what broker: holds")
    broker = _broker(top.sub("broker", BROKER_KEYS))
    tables = tuple(_names(top, "tables", table=True))
    if not tables:
        top.fail("tables", "name at least one table (its table.id), e.g. [t1, t2]")
    lists = {k: tuple(_names(top, k)) for k in ("pits", "archives", "game_servers")}
    bridges = tuple(_bridge(top, i, b) for i, b in enumerate(_list(top, "bridges")))
    peers = tuple(_peer(top, i, p) for i, p in enumerate(_list(top, "bridged_from")))
    for what, found in (("bridges", [b.name for b in bridges]),
                        ("bridged_from", [p.name for p in peers])):
        twice = sorted({n for n in found if found.count(n) > 1})
        if twice:
            top.fail(what, f"{twice[0]!r} is named twice; each bridge has its own name")
    studio = Studio(path, broker, tables, lists["pits"], lists["archives"],
                    lists["game_servers"], bridges, peers)
    if len(studio.identities()) > PARTIES_MAX:
        top.fail("tables", f"{len(studio.identities())} parties: at most {PARTIES_MAX} on one "
                 "broker; split the studio")
    return studio


def _broker(sec: Section) -> StudioBroker:
    listen = sec.str_("listen", "0.0.0.0", "the address the TLS listener binds, e.g. 0.0.0.0")
    port = sec.int_("port", 8883, 1, "a TCP port", 65535) or 8883
    prefix = sec.str_("prefix", "baccarat", "the stations' upstream.prefix") or "baccarat"
    for key, problem in MqttLink(prefix=prefix).problems():
        sec.fail(sec.key(key), problem)
    identity = sec.choice("identity", "certificate", IDENTITIES)
    files = {}
    for key, fix in (("ca_file", "the studio CA's certificate (PEM): the parties' "
                      "certificates chain to it"),
                     ("cert_file", "the broker's certificate (PEM), issued by the studio CA"),
                     ("key_file", "the broker's private key (PEM)")):
        value = sec.path_(key, None, fix)
        if value is None:
            sec.fail(sec.key(key), f"required: {fix}")
        files[key] = _absolute(sec, value)
    password = sec.path_("password_file", None, "the file `mosquitto_passwd -c FILE NAME` "
                         "makes")
    if identity == "password" and password is None:
        sec.fail(sec.key("password_file"), "required with identity: password: the file "
                 "`mosquitto_passwd -c FILE station-t1` makes, one line per party")
    if identity == "certificate" and password is not None:
        sec.fail(sec.key("password_file"), "goes with identity: password; with identity: "
                 "certificate each party is its certificate's common name (remove it)")
    persistence = sec.path_("persistence_dir", None, "the folder Mosquitto keeps its "
                            "sessions in, e.g. /var/lib/mosquitto")
    return StudioBroker(listen or "0.0.0.0", port, prefix, identity, files["ca_file"],
                        files["cert_file"], files["key_file"],
                        None if password is None else _absolute(sec, password),
                        None if persistence is None else _absolute(sec, persistence))


def _absolute(sec: Section, value: str) -> Path:
    return (sec.path.parent / value).absolute()


def _list(top: Section, key: str) -> list[Any]:
    value = top.data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        top.fail(key, "expected a list")
    return value


def _names(top: Section, key: str, table: bool = False) -> list[str]:
    out: list[str] = []
    for i, value in enumerate(_list(top, key)):
        where = f"{key}[{i}]"
        if table:
            problem = table_id_problem(value)
            if problem is not None:
                top.fail(where, problem)
        elif not isinstance(value, str) or not KEY_NAME.match(value):
            top.fail(where, f"{str(value)[:40]!r}: 1-64 letters, digits, '_', '-' or '.', "
                     f"the {ROLES[key]}'s name")
        if value in out:
            top.fail(where, f"{value!r} is named twice")
        out.append(value)
    if table and not all(len(f"station-{t}") <= 64 for t in out):
        top.fail(key, f"a table id of at most 56 characters: its identity station-<id> is "
                 f"an MQTT client id (64 at most); {TABLE_ID_FORM}")
    return out


def _leaves(sec: Section, key: str) -> tuple[str, ...]:
    value = sec.data.get(key) or []
    if not isinstance(value, list) or not all(v in LEAVES for v in value):
        sec.fail(sec.key(key), f"a list of the table topics' leaves: {', '.join(LEAVES)}")
    return tuple(dict.fromkeys(value))


def _named(sec: Section) -> str:
    name = sec.str_("name", None, "the bridge's name, e.g. dc")
    if name is None or not KEY_NAME.match(name):
        sec.fail(sec.key("name"), "required: 1-64 letters, digits, '_', '-' or '.'; the "
                 "bridge's identity is bridge-<name>")
    return name


def _bridge(top: Section, i: int, raw: Any) -> Bridge:
    sec = Section(top.path, f"bridges[{i}]", raw, BRIDGE_KEYS)
    name = _named(sec)
    host = sec.str_("address", None, "the other broker's host name or address")
    if not host:
        sec.fail(sec.key("address"), "required: the other broker's host name or address")
    port = sec.int_("port", 8883, 1, "a TCP port", 65535) or 8883
    files = {}
    for key in ("ca_file", "cert_file", "key_file"):
        value = sec.path_(key, None, "a PEM file")
        if value is None:
            sec.fail(sec.key(key), "required: the CA of the other broker's certificate, and "
                     f"this bridge's own certificate (common name bridge-{name}) and key")
        files[key] = _absolute(sec, value)
    out, into = _leaves(sec, "out"), _leaves(sec, "in")
    if not out and not into:
        sec.fail(sec.key("out"), "a bridge that carries nothing: list the leaves it "
                 "forwards (out) and takes (in)")
    return Bridge(name, host, port, files["ca_file"], files["cert_file"], files["key_file"],
                  out, into)


def _peer(top: Section, i: int, raw: Any) -> Peer:
    sec = Section(top.path, f"bridged_from[{i}]", raw, PEER_KEYS)
    return Peer(_named(sec), _leaves(sec, "out"), _leaves(sec, "in"))
