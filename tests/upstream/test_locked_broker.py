"""The studio's broker, locked by the profile ``station broker-config`` writes (issue 32),
against a real Mosquitto with a CA of the test's own: each party connects and reaches what its
role needs; a table's certificate cannot publish on another table's topics (the message never
reaches a subscriber) nor read another's commands; a game server never gets a journal
message; a client with no certificate, or one from another CA, is refused; with a password
file, an unknown user is refused. Mosquitto 2.0 grants a SUBSCRIBE and filters each message
by the ACL as it is delivered, so "cannot read" is tested as "never gets"."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.brokerkit import CA, Listener, Studio, broker_config, locked_studio, write_studio
from tests.upstream.broker import MOSQUITTO_PASSWD, wait_until

P = "baccarat"


@pytest.fixture
def studio(tmp_path: Path) -> Iterator[Studio]:
    s = locked_studio(tmp_path / "studio", tables=["t1", "t2"], pits=["pit"],
                      archives=["dc1"], game_servers=["gs1"])
    try:
        yield s
    finally:
        s.stop()


def connected(studio: Studio, identity: str) -> Listener:
    party = studio.party(identity)
    party.wait()
    assert party.connected, (identity, party.connack, studio.log.read_text()[-2000:])
    return party


def settle() -> None:
    """Long enough for a message the broker would forward to arrive on loopback: a
    message that is not there after it is not coming (the positive controls, published
    after, arrive within it)."""
    time.sleep(0.3)


def test_each_party_reaches_what_its_role_needs_and_a_table_only_its_own_topics(
        studio: Studio) -> None:
    t1, t2 = connected(studio, "station-t1"), connected(studio, "station-t2")
    pit, archive = connected(studio, "pit-pit"), connected(studio, "archive-dc1")
    game = connected(studio, "game-gs1")
    try:
        pit.subscribe(f"{P}/+/events", f"{P}/+/status", f"{P}/+/archive")
        archive.subscribe(f"{P}/+/journal")
        game.subscribe(f"{P}/#")  # as much as it can: it gets only what it may read
        t1.subscribe(f"{P}/+/commands")
        t2.subscribe(f"{P}/t2/commands")
        # t1 forging t2's messages on every one of t2's topics: refused, delivered nowhere.
        for leaf in ("events", "status", "journal", "commands", "archive"):
            assert t1.publish(f"{P}/t2/{leaf}", b"forged").is_failure
        # The game server and the pit may not write a journal or an archive alert.
        assert game.publish(f"{P}/t1/journal", b"forged").is_failure
        assert pit.publish(f"{P}/t1/journal", b"forged").is_failure
        assert not game.publish(f"{P}/t2/commands", b"game").is_failure
        assert not pit.publish(f"{P}/t1/commands", b"pit").is_failure
        assert not archive.publish(f"{P}/t1/commands", b"archived").is_failure
        assert not archive.publish(f"{P}/t1/archive", b"alert").is_failure
        for leaf in ("events", "status", "journal"):
            assert not t1.publish(f"{P}/t1/{leaf}", leaf.encode()).is_failure
        settle()
        wait_until(lambda: len(pit.messages()) >= 3 and len(game.messages()) >= 2, 10,
                   "the parties' messages")
        assert sorted(pit.messages()) == sorted([(f"{P}/t1/events", b"events"),
                                                 (f"{P}/t1/status", b"status"),
                                                 (f"{P}/t1/archive", b"alert")])
        assert archive.messages() == [(f"{P}/t1/journal", b"journal")]
        # The game server never gets a journal message, nor an alert, nor commands.
        assert sorted(game.messages()) == sorted([(f"{P}/t1/events", b"events"),
                                                  (f"{P}/t1/status", b"status")])
        # t1 reads its own commands only, though it subscribed to every table's.
        assert sorted(t1.messages()) == sorted([(f"{P}/t1/commands", b"pit"),
                                                (f"{P}/t1/commands", b"archived")])
        assert t2.messages() == [(f"{P}/t2/commands", b"game")]
    finally:
        for party in (t1, t2, pit, archive, game):
            party.close()


def test_no_certificate_another_cas_or_an_unlisted_name_gets_nothing(
        studio: Studio, tmp_path: Path) -> None:
    anonymous = studio.party(None)
    anonymous.wait()
    assert not anonymous.connected
    foreign = studio.party("station-t1", "foreign", ca=CA(tmp_path / "other-ca"))
    foreign.wait()
    assert not foreign.connected
    # A name the studio does not list, with a certificate of the studio's CA (which issues
    # them to its parties only): it connects, and the ACL grants it nothing.
    stranger = connected(studio, "station-t9")
    pit, t1 = connected(studio, "pit-pit"), connected(studio, "station-t1")
    try:
        pit.subscribe(f"{P}/+/events")
        stranger.subscribe(f"{P}/#")
        assert stranger.publish(f"{P}/t1/events", b"forged").is_failure
        assert stranger.publish(f"{P}/t9/events", b"forged").is_failure
        assert not t1.publish(f"{P}/t1/events", b"real").is_failure
        assert not pit.publish(f"{P}/t1/commands", b"c").is_failure
        wait_until(lambda: pit.messages() != [], 10, "the real message")
        settle()
        assert pit.messages() == [(f"{P}/t1/events", b"real")]
        assert stranger.messages() == []
    finally:
        for party in (anonymous, foreign, stranger, pit, t1):
            party.close()
    log = studio.log.read_text()
    assert "peer did not return a certificate" in log


def test_a_password_file_studio_refuses_unknown_users_and_anonymous_ones(
        tmp_path: Path) -> None:
    import subprocess  # noqa: PLC0415

    import paho.mqtt.client as paho  # noqa: PLC0415
    from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion  # noqa: PLC0415

    folder = tmp_path / "studio"
    folder.mkdir()
    ca = CA(folder / "ca")
    passwords = folder / "passwords"
    subprocess.run([MOSQUITTO_PASSWD, "-c", "-b", str(passwords), "station-t1", "s3cret"],
                   check=True, capture_output=True)
    path, port = write_studio(folder, ca, tables=["t1"])
    import yaml  # noqa: PLC0415

    data = yaml.safe_load(path.read_text())
    data["broker"].update(identity="password", password_file=str(passwords))
    path.write_text(yaml.safe_dump(data))
    (folder / "data").mkdir()
    done = broker_config(path, folder / "mosquitto")
    assert done.returncode == 0, done.stderr
    studio = Studio(folder, ca, port, folder / "mosquitto" / "mosquitto.conf")
    studio.start()

    def login(user: str | None, password: str | None) -> object:
        answer: list[object] = []
        client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"c-{user}",
                             protocol=MQTTProtocolVersion.MQTTv5)
        client.tls_set(ca_certs=str(ca.file))
        if user is not None:
            client.username_pw_set(user, password)
        client.on_connect = lambda c, u, f, reason, p: answer.append(reason)
        client.connect("127.0.0.1", port, keepalive=10)
        client.loop_start()
        try:
            wait_until(lambda: bool(answer), 10, "CONNACK")
        finally:
            client.disconnect()
            client.loop_stop()
        return answer[0]

    try:
        assert not login("station-t1", "s3cret").is_failure  # type: ignore[attr-defined]
        for user, password in (("station-t1", "wrong"), ("intruder", "s3cret"), (None, None)):
            assert login(user, password).is_failure, user  # type: ignore[attr-defined]
    finally:
        studio.stop()


def test_the_pits_client_connects_with_its_certificate_by_config(studio: Studio) -> None:
    """The pit (and the archive) connect through one client (station.services.broker.client),
    built from their ``broker:`` section: ``tls: {ca_file, cert_file, key_file}`` is all
    it takes on the locked broker."""
    import threading  # noqa: PLC0415

    from station.services.broker.client import connect_persistent, service_client  # noqa: PLC0415
    from station.services.broker.config import BrokerSettings  # noqa: PLC0415
    from station.upstream.mqttlink import TlsSettings  # noqa: PLC0415

    files = studio.files("pit-pit")
    settings = BrokerSettings(host="127.0.0.1", port=studio.port, tls=TlsSettings(
        Path(files["ca_file"]), Path(files["cert_file"]), Path(files["key_file"])))
    client = service_client(settings, "pit-pit", Path("pit.yaml"))
    got: list[bytes] = []
    subscribed = threading.Event()
    client.on_connect = lambda c, u, f, reason, p: c.subscribe(f"{P}/+/events", qos=1)
    client.on_subscribe = lambda c, u, mid, reasons, p: subscribed.set()
    client.on_message = lambda c, u, message: got.append(bytes(message.payload))
    connect_persistent(client, settings)
    t1 = connected(studio, "station-t1")
    try:
        wait_until(subscribed.is_set, 10, "the pit's subscription")
        assert not t1.publish(f"{P}/t1/events", b"card").is_failure
        wait_until(lambda: got == [b"card"], 10, "the pit's message")
    finally:
        t1.close()
        client.disconnect()
        client.loop_stop()
    assert "u'pit-pit'" in studio.log.read_text()
