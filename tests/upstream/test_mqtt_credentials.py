"""MQTT credentials (docs/operations.md section 3, README `upstream.credentials_file`) against a
real Mosquitto that refuses anonymous clients: the right user and password deliver; a wrong
password is refused with a clear log line, and every message waits in the outbox."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from station.upstream.mqtt import MqttPublisher
from station.upstream.mqttlink import MqttLink
from station.wire.signing import Signer
from tests.upstream.broker import Broker, Subscriber, wait_until
from tests.upstream.helpers import TABLE, deduped_seqs, produce
from tests.upstream.outboxes import MemoryOutbox

USER, PASSWORD = "station-7", "a password with spaces"
GAME_SERVER = ("game-server", "its own secret")


@pytest.fixture
def locked_broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "broker", users={USER: PASSWORD, GAME_SERVER[0]: GAME_SERVER[1]})
    b.start()
    try:
        yield b
    finally:
        b.kill()


def credentials(tmp_path: Path, password: str) -> Path:
    path = tmp_path / "mqtt-credentials"
    path.write_text(f"{USER}\n{password}\n")
    path.chmod(0o600)
    return path


def publisher(broker: Broker, outbox: MemoryOutbox, signer: Signer,
              creds: Path) -> MqttPublisher:
    settings = MqttLink(host="127.0.0.1", port=broker.port,
                                reconnect_max_s=1, credentials_file=creds)
    return MqttPublisher(outbox, settings, table=TABLE, signer=signer, environ={})


def delivers_all_20(broker: Broker, outbox: MemoryOutbox, signer: Signer, tmp_path: Path) -> None:
    """A publisher with the right password drains ``outbox``: the game server (logged in
    too) gets every one of its 20 messages, in order."""
    sub = Subscriber(broker.port, f"baccarat/{TABLE}/#", login=GAME_SERVER)
    pub = publisher(broker, outbox, signer, credentials(tmp_path, PASSWORD))
    pub.start()
    try:
        wait_until(lambda: outbox.backlog() == 0, 20, "the outbox to drain")
        wait_until(lambda: len(deduped_seqs(sub.snapshot())) == 20, 10, "all 20 messages")
    finally:
        pub.stop()
        sub.close()
    assert deduped_seqs(sub.snapshot()) == list(range(1, 21))


def test_the_credentials_file_logs_in_and_delivers(locked_broker: Broker, signer: Signer,
                                                   tmp_path: Path) -> None:
    outbox = MemoryOutbox()
    produce(outbox, signer, 20)
    delivers_all_20(locked_broker, outbox, signer, tmp_path)


def test_a_wrong_password_is_refused_clearly_and_nothing_is_lost(
        locked_broker: Broker, signer: Signer, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    outbox = MemoryOutbox()
    produce(outbox, signer, 20)
    pub = publisher(locked_broker, outbox, signer, credentials(tmp_path, "not it"))
    with caplog.at_level(logging.WARNING, logger="station.upstream"):
        pub.start()
        try:
            wait_until(lambda: "connection refused" in caplog.text, 15, "the refusal")
            time.sleep(2.5)  # a few retries, each refused
            assert not pub.connected
        finally:
            pub.stop()
    refusals = [r.getMessage() for r in caplog.records if "connection refused" in r.getMessage()]
    assert len(refusals) == 1, refusals  # one line per outage, not one per retry
    assert "Not authorized" in refusals[0] or "Bad user name or password" in refusals[0]
    assert "20 message(s) wait in the outbox" in refusals[0]
    assert outbox.backlog() == 20 and outbox.mark_calls == []
    # The same outbox with the right password: every message goes out, in order.
    delivers_all_20(locked_broker, outbox, signer, tmp_path)
