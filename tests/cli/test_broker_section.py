"""``broker:`` and ``tables:`` are one parser for every service that listens to many tables
(station.services.broker.config; docs/configuration.md, "broker and tables"): the pit and the
archive
take the same keys, refuse the same values with the same words, and differ only in the one
default each passes in (``session_expiry_s``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.errors import ConfigError
from station.services.archive.config import load_archive_config
from station.services.broker.client import service_client
from station.services.broker.config import BROKER_KEYS, BrokerSettings
from station.services.pit.config import load_pit_config
from station.upstream.mqttlink import TlsSettings
from station.upstream.mqttsetup import CREDENTIAL_NAME
from station.wire.signing import private_pem

EVERY_KEY = {"host": "broker.example", "port": 8884, "prefix": "studio/a",
             "client_id": "floor-1", "credentials_file": "creds",
             "tls": {"ca_file": "ca.pem"}, "keepalive_s": 45, "session_expiry_s": 600,
             "reconnect_max_s": 12}
BAD = [
    ({"port": 70000}, "broker.port"),
    ({"port": "x"}, "broker.port"),
    ({"prefix": "a/+"}, "broker.prefix: 'a/+': use letters"),
    ({"client_id": "x" * 65}, "broker.client_id: must be 1-64 characters"),
    ({"keepalive_s": 3}, "broker.keepalive_s: must be at least 5, got 3"),
    ({"session_expiry_s": -1}, "broker.session_expiry_s"),
    ({"reconnect_max_s": 0}, "broker.reconnect_max_s: must be at least 1, got 0"),
    ({"tls": {"cert_file": "c.pem"}}, "broker.tls: cert_file and key_file go together"),
    ({"tls": {"ca": "x"}}, "broker.tls.ca: unknown key"),
    ({"command_keys": {}}, "broker.command_keys: unknown key"),
    ({"credentials_file": "${CREDENTIALS_DIRECTORY}/"}, "broker.credentials_file"),
]


def _pit(folder: Path, broker: dict[str, Any], tables: dict[str, Any]) -> Path:
    path = folder / "pit.yaml"
    path.write_text(yaml.safe_dump({"broker": broker, "tables": tables,
                                    "pit": {"signing_key_file": "key.pem"}}))
    return path


def _archive(folder: Path, broker: dict[str, Any], tables: dict[str, Any]) -> Path:
    path = folder / "archive.yaml"
    path.write_text(yaml.safe_dump({"broker": broker, "tables": tables,
                                    "archive": {"dir": "journals", "name": "dc1",
                                                "signing_key_file": "key.pem"}}))
    return path


SERVICES: dict[str, tuple[Callable[[Path, dict[str, Any], dict[str, Any]], Path],
                          Callable[[Path], Any], int]] = {
    "pit": (_pit, load_pit_config, 3600),
    "archive": (_archive, load_archive_config, 86400),
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "keys").mkdir()
    (tmp_path / "key.pem").write_bytes(private_pem(Ed25519PrivateKey.generate()))
    return tmp_path


def broker_of(service: str, folder: Path, broker: dict[str, Any],
              tables: dict[str, Any] | None = None) -> BrokerSettings:
    write, load, _ = SERVICES[service]
    path = write(folder, broker, {"keys_dir": "keys"} if tables is None else tables)
    settings = load(path).broker
    assert isinstance(settings, BrokerSettings)
    return settings


def refusal(service: str, folder: Path, broker: dict[str, Any],
            tables: dict[str, Any] | None = None) -> str:
    write, load, _ = SERVICES[service]
    path = write(folder, broker, {"keys_dir": "keys"} if tables is None else tables)
    with pytest.raises(ConfigError) as info:
        load(path)
    text = str(info.value)
    assert text.startswith(f"{path}: "), text
    return text.removeprefix(f"{path}: ")


def test_every_key_is_taken_alike_by_both_services(folder: Path) -> None:
    assert set(EVERY_KEY) == set(BROKER_KEYS)
    want = BrokerSettings("broker.example", 8884, "studio/a", "floor-1", folder / "creds",
                          TlsSettings(folder / "ca.pem"), 45, 600, 12)
    for service in SERVICES:
        assert broker_of(service, folder, EVERY_KEY) == want, service


@pytest.mark.parametrize("service", list(SERVICES))
def test_the_defaults_differ_only_in_the_session_expiry_the_service_passes(
        folder: Path, service: str) -> None:
    got = broker_of(service, folder, {})
    assert got == BrokerSettings(session_expiry_s=SERVICES[service][2])
    assert got.effective_port == 1883 and broker_of(service, folder, {"tls": True}
                                                    ).effective_port == 8883


@pytest.mark.parametrize(("edit", "words"), BAD)
def test_a_bad_value_is_refused_with_the_same_words_by_both(folder: Path,
                                                            edit: dict[str, Any],
                                                            words: str) -> None:
    said = {service: refusal(service, folder, edit) for service in SERVICES}
    assert said["pit"] == said["archive"], said
    assert said["pit"].startswith(words), said["pit"]


@pytest.mark.parametrize(("tables", "words"), [
    ({}, "tables.keys_dir: required: the folder of the tables' public keys"),
    ({"keys_dir": "nowhere"}, "tables.keys_dir: "),
    ({"keys_dir": 7}, "tables.keys_dir: expected a non-empty text"),
    ({"keys": "keys"}, "tables.keys: unknown key (did you mean 'keys_dir'?)"),
])
def test_tables_is_refused_with_the_same_words_by_both(folder: Path, tables: dict[str, Any],
                                                       words: str) -> None:
    said = {service: refusal(service, folder, {}, tables) for service in SERVICES}
    assert said["pit"] == said["archive"], said
    assert said["pit"].startswith(words), said["pit"]


def test_the_client_takes_the_units_credential_and_names_a_bad_file(folder: Path) -> None:
    # No credentials_file: the unit's credential mqtt-credentials, as the station's publisher.
    creds = folder / "credentials"
    creds.mkdir()
    (creds / CREDENTIAL_NAME).write_text("pit\nsecret word\n")
    config = folder / "pit.yaml"
    client = service_client(BrokerSettings(), "pit-1", config,
                            environ={"CREDENTIALS_DIRECTORY": str(creds)})
    assert client._username == b"pit" and client._password == b"secret word"
    assert service_client(BrokerSettings(), "pit-1", config, environ={})._username is None
    # A file that is not one: its key and config named.
    (creds / CREDENTIAL_NAME).write_text("one line\n")
    with pytest.raises(ConfigError, match=r"pit\.yaml: broker\.credentials_file .*user name"):
        service_client(BrokerSettings(), "pit-1", config,
                       environ={"CREDENTIALS_DIRECTORY": str(creds)})
    (folder / "ca.pem").write_text("not a certificate\n")
    with pytest.raises(ConfigError, match=r"pit\.yaml: broker\.tls: "):
        service_client(BrokerSettings(tls=TlsSettings(folder / "ca.pem")), "pit-1", config)


@pytest.mark.parametrize("service", list(SERVICES))
@pytest.mark.parametrize("section", ["broker", "tables", "own"])
def test_a_missing_section_is_named_with_the_shipped_example(folder: Path, service: str,
                                                             section: str) -> None:
    write, load, _ = SERVICES[service]
    path = write(folder, {}, {"keys_dir": "keys"})
    data = yaml.safe_load(path.read_text())
    name = service if section == "own" else section
    del data[name]
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as info:
        load(path)
    assert str(info.value) == (f"{path}: {name}: missing section: see config/{service}.yaml "
                               f"for what {name}: holds")


def test_an_unknown_top_level_key_is_refused_alike(folder: Path) -> None:
    said = {}
    for service, (write, load, _) in SERVICES.items():
        path = write(folder, {}, {"keys_dir": "keys"})
        path.write_text(path.read_text() + "brokers: {}\n")
        with pytest.raises(ConfigError) as info:
            load(path)
        said[service] = str(info.value).removeprefix(f"{path}: ")
    assert said["pit"] == said["archive"] == "brokers: unknown key (did you mean 'broker'?)"
