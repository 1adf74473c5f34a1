"""``upstream.type: mqtt``: the messages to an MQTT 5 broker, and the game server's signed
commands from it (``station.upstream.mqtt``; paho is imported only when chosen)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from station.errors import ConfigError
from station.kinds.keys import Key
from station.kinds.outlets import OutletContext, secret_file
from station.kinds.probes import Finding, clear_broker
from station.settings.configmodel import StationConfig
from station.settings.configsection import Section, secret_path
from station.settings.upstream import KEY_NAME
from station.upstream.mqttlink import MAX_INFLIGHT_LIMIT, MqttLink, TlsSettings

if TYPE_CHECKING:
    from station.upstream.mqtt import MqttPublisher

BROKER_TIMEOUT_S = 5.0
MIRROR_KEY_FIX = (
    "required with mirror: true: the archive's X25519 public key (PEM), for which each "
    "record's content is sealed, so no other subscriber of the broker reads the journal (on "
    "a squeeze or VIP table it holds every face-down card before its reveal); `station "
    "keygen DIR --mirror` writes the archive's pair, or set mirror: false")


@dataclass(frozen=True, slots=True)
class MqttSettings:
    """The mqtt outlet's own keys: how to reach the broker (``link``, what the publisher
    and the services of many tables read), the journal's mirror, and the senders whose
    signed commands are taken."""

    link: MqttLink = field(default_factory=MqttLink)
    # Publish every committed journal record on <prefix>/<table>/journal for an archive
    # (station.upstream.mirror); off by default: it is for a table that has an archive.
    mirror: bool = False
    # The archive's X25519 public key (PEM): each mirror record's content is sealed for it
    # (station.wire.sealing), so no other subscriber reads the journal. Required with mirror.
    mirror_key: Path | None = None
    command_keys: Mapping[str, Path] = field(default_factory=dict)  # name -> public key PEM
    command_window_s: float = 30.0
    command_skew_s: float = 5.0

    def problems(self) -> list[tuple[str, str]]:
        """``(key, message)`` for every invalid value; empty when all is well."""
        out = self.link.problems()
        for name in self.command_keys:
            if not KEY_NAME.match(name):
                out.append((f"command_keys.{name}", "a key's name is 1-64 letters, digits, "
                                                    "'_', '-' or '.'; it is who sent a command"))
        if self.mirror and self.mirror_key is None:
            out.append(("mirror_key", MIRROR_KEY_FIX))
        if self.command_window_s <= 0:
            out.append(("command_window_s", "must be more than 0"))
        if self.command_skew_s < 0:
            out.append(("command_skew_s", "must be 0 or more"))
        return out


_D = MqttLink()
_C = MqttSettings()

KEYS = (
    Key("host", "text", _D.host, "the broker's host name or address"),
    Key("port", "whole number", "null", "the broker's TCP port; null: 1883, or 8883 with tls"),
    Key("prefix", "text", _D.prefix, "the topics' first levels: PREFIX/TABLE/..."),
    Key("client_id", "text", "null", "the MQTT client id (1-64 characters); null: "
        "station-TABLE"),
    Key("credentials_file", "file", "null", "the broker's username (line 1) and password "
        "(line 2), next to the config or ${CREDENTIALS_DIRECTORY}/ID"),
    Key("tls", "true, false or {ca_file, cert_file, key_file}", "false", "TLS to the broker: "
        "true for the system's CAs, or the PEM files (a client certificate needs its key)"),
    Key("keepalive_s", "whole number", str(_D.keepalive_s), "MQTT keep-alive (5-3600)", "s"),
    Key("session_expiry_s", "whole number", str(_D.session_expiry_s), "how long the broker "
        "keeps the session while the station is offline (0-604800)", "s"),
    Key("max_inflight", "whole number", str(_D.max_inflight), "messages sent and not yet "
        f"acknowledged (1-{MAX_INFLIGHT_LIMIT})"),
    Key("reconnect_max_s", "whole number", str(_D.reconnect_max_s), "the reconnect backoff "
        "doubles from 1 s up to this (1-3600)", "s"),
    Key("mirror", "true or false", "false", "publish every committed journal record on "
        "PREFIX/TABLE/journal, for `station archive` to keep a verified copy off the machine"),
    Key("mirror_key", "file", "null", "with mirror: the archive's X25519 public key (PEM) "
        "the journal's records are sealed for (`station keygen DIR --mirror`); required"),
    Key("command_keys", "{name: file}", "{}", "the public keys (PEM) of whoever may send "
        "commands, by sender name; empty: commands from the broker are not taken"),
    Key("command_window_s", "number", f"{_C.command_window_s:g}", "how old a command may be "
        "and still be taken", "s"),
    Key("command_skew_s", "number", f"{_C.command_skew_s:g}", "how far ahead of the "
        "station's clock a command may be dated", "s"),
)


def settings(config: StationConfig) -> MqttSettings:
    """The chosen mqtt outlet's settings, typed."""
    return config.upstream.kind_as(MqttSettings)


def parse(sec: Section, chosen: bool) -> MqttSettings:
    tls = _tls(sec)
    command_keys = _command_keys(sec)
    link = _link(sec, MqttLink(), tls)
    d = MqttSettings()
    own = MqttSettings(
        link=link, command_keys=command_keys,
        command_window_s=sec.float_("command_window_s", d.command_window_s, "e.g. 30"),
        command_skew_s=sec.float_("command_skew_s", d.command_skew_s, "e.g. 5"),
        mirror=sec.bool_("mirror", d.mirror, "true publishes the journal for an archive"),
        mirror_key=_mirror_key(sec))
    for key, problem in own.problems():
        sec.fail(sec.key(key), problem)
    return own


def parse_link(sec: Section, base: MqttLink) -> MqttLink:
    """The broker keys of ``sec``, as ``upstream:`` reads them, checked. A key left out
    keeps the value ``base`` has: a service passes its own (station.services.broker.config:
    how long the broker queues for it, say)."""
    link = _link(sec, base, _tls(sec))
    for key, problem in link.problems():
        sec.fail(sec.key(key), problem)
    return link


def _tls(sec: Section) -> TlsSettings | None:
    tls_raw = sec.data.get("tls", False)
    if tls_raw is True:
        return TlsSettings()
    if tls_raw is False or tls_raw is None:
        return None
    t = sec.sub("tls", ("ca_file", "cert_file", "key_file"))
    return TlsSettings(*(None if (v := t.path_(k, None, "a PEM file")) is None
                         else secret_path(t, k, v)
                         for k in ("ca_file", "cert_file", "key_file")))


def _mirror_key(sec: Section) -> Path | None:
    value = sec.path_("mirror_key", None, "the archive's X25519 public key (PEM)")
    return None if value is None else sec.path.parent / value


def _command_keys(sec: Section) -> dict[str, Path]:
    keys_sec = sec.data.get("command_keys") or {}
    if not isinstance(keys_sec, dict):
        sec.fail(sec.key("command_keys"), "expected a mapping of sender name to public key "
                 "file, e.g. {pit: keys/pit.pub.pem}")
    if not all(isinstance(k, str) for k in keys_sec):
        sec.fail(sec.key("command_keys"), "each sender name must be text")
    command_keys = {}
    ks = Section(sec.path, sec.key("command_keys"), keys_sec, tuple(keys_sec))
    for name in keys_sec:
        value = ks.path_(name, None, "a public key PEM file")
        if value is not None:
            command_keys[str(name)] = sec.path.parent / value
    return command_keys


def _link(sec: Section, d: MqttLink, tls: TlsSettings | None) -> MqttLink:
    def whole(name: str, default: int, maximum: int) -> int:
        return sec.int_(name, default, 0, "a whole number", maximum) or 0

    port = sec.data.get("port")
    return MqttLink(
        host=sec.str_("host", d.host, "the broker's host name or address") or d.host,
        port=None if port is None else sec.int_("port", None, 1, "a TCP port", 65535),
        prefix=sec.str_("prefix", d.prefix, "e.g. baccarat") or d.prefix,
        client_id=sec.str_("client_id", None, "1-64 characters, or null"),
        credentials_file=secret_file(sec, "credentials_file"),
        tls=tls,
        keepalive_s=whole("keepalive_s", d.keepalive_s, 3600),
        session_expiry_s=whole("session_expiry_s", d.session_expiry_s, 7 * 86400),
        max_inflight=whole("max_inflight", d.max_inflight, 1000),
        reconnect_max_s=whole("reconnect_max_s", d.reconnect_max_s, 3600),
    )


def build(ctx: OutletContext) -> MqttPublisher:
    from station.upstream.mqtt import MqttPublisher  # noqa: PLC0415 - paho only when chosen
    from station.wire.commands import CommandPolicy, CommandVerifier  # noqa: PLC0415
    from station.wire.signing import load_public_key  # noqa: PLC0415

    config, up = ctx.config, settings(ctx.config)
    assert ctx.signer is not None  # the assembly refuses a signed outlet without a key
    verifier = None
    if up.command_keys:
        keys = {name: load_public_key(p) for name, p in up.command_keys.items()}
        verifier = CommandVerifier(CommandPolicy(config.rules.table, keys, up.command_window_s,
                                                 up.command_skew_s))
        for cid, ts in ctx.command_ids:  # a command accepted before the restart stays used
            verifier.seen.add(cid, ts + up.command_window_s + 1.0)
    mirror = None
    if up.mirror:
        from station.upstream.mirror import JournalMirror  # noqa: PLC0415
        from station.wire.sealing import load_mirror_public  # noqa: PLC0415

        assert up.mirror_key is not None  # problems() refuses a mirror without one
        mirror = JournalMirror(Path(config.journal_path), table=config.rules.table,
                               signer=ctx.signer, sealer=load_mirror_public(up.mirror_key))
    return MqttPublisher(ctx.box, up.link, table=config.rules.table, signer=ctx.signer,
                         verifier=verifier, on_command=ctx.on_command if verifier else None,
                         head=ctx.head, mirror=mirror)


def probe(config: StationConfig) -> Iterator[Finding]:
    """One MQTT connect under a client id of its own (so a running station's session is
    never taken over), then a clean disconnect; whether it is in clear; the mirror's key."""
    up = settings(config)
    yield clear_broker("upstream.tls", f"{up.link.host}:{up.link.effective_port}", up.link.tls)
    if up.mirror and up.mirror_key is not None:
        yield _mirror_key_finding(up.mirror_key)
    yield _broker(config)


def _mirror_key_finding(path: Path) -> Finding:
    from station.wire.sealing import load_mirror_public  # noqa: PLC0415

    try:
        sealer = load_mirror_public(path)
    except ConfigError as exc:
        return Finding(False, "upstream.mirror_key", str(exc))
    return Finding(True, "upstream.mirror_key", f"{path}: the journal's records are sealed "
                   f"for the archive's X25519 key {sealer.kid}")


def _broker(config: StationConfig) -> Finding:
    import paho.mqtt.client as paho  # noqa: PLC0415
    from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion  # noqa: PLC0415

    from station.upstream.mqttsetup import (  # noqa: PLC0415
        apply_tls,
        credentials_file,
        read_credentials,
    )

    up = settings(config).link
    where = f"{up.host}:{up.effective_port}"
    client = paho.Client(CallbackAPIVersion.VERSION2,
                         client_id=f"{up.client_id_for(config.rules.table)}-check"[:64],
                         protocol=MQTTProtocolVersion.MQTTv5)
    try:
        creds = credentials_file(up.credentials_file)
        if creds is not None:
            client.username_pw_set(*read_credentials(creds))
        apply_tls(client, up.tls, "upstream.tls")
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
