"""The MQTT publisher against a real Mosquitto: delivery, retained status, will, commands."""

from __future__ import annotations

import base64
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.upstream.mqtt import MqttPublisher
from station.upstream.mqttlink import MqttLink
from station.wire import messages as m
from station.wire.commands import Accepted, CommandPolicy, CommandVerifier, Refused
from station.wire.signing import Signer, private_pem, verify
from tests.upstream.broker import Broker, Subscriber, wait_until
from tests.upstream.helpers import TABLE, deduped_seqs, produce
from tests.upstream.outboxes import MemoryOutbox

# A status names a journal head (docs/upstream.md); these tests have no journal.
NO_JOURNAL = m.journal_head(bytes(32), 0, bytes(32))

REPO = Path(__file__).resolve().parents[2]


def settings_for(broker: Broker, **kw: object) -> MqttLink:
    return MqttLink(host="127.0.0.1", port=broker.port,
                            reconnect_max_s=2, **kw)  # type: ignore[arg-type]


def test_delivers_in_order_and_marks_only_acknowledged_rows(broker: Broker,
                                                            signer: Signer) -> None:
    outbox = MemoryOutbox()
    sub = Subscriber(broker.port, f"baccarat/{TABLE}/#")
    produce(outbox, signer, 250)
    pub = MqttPublisher(outbox, settings_for(broker, max_inflight=20), table=TABLE,
                        signer=signer)
    pub.start()
    try:
        produce(outbox, signer, 250)
        pub.notify()
        wait_until(lambda: outbox.backlog() == 0, 20, "the outbox to drain")
        wait_until(lambda: len(deduped_seqs(sub.snapshot())) == 500, 10, "all 500 messages")
    finally:
        pub.stop()
        sub.close()
    received = sub.snapshot()
    assert deduped_seqs(received) == list(range(1, 501))
    # Marked in id order, each once (MemoryOutbox asserts once), in batches of the prefix.
    marked = [i for call in outbox.mark_calls for i in call]
    assert marked == list(range(1, 501))
    events = [r for r in received if r.topic.endswith("/events")]
    statuses = [r for r in received if r.topic.endswith("/status")]
    assert len(events) == 450
    assert all(json.loads(r.payload)["kind"] == "status" for r in statuses)
    key = signer.public_key()
    for r in received:
        verify(json.loads(r.payload), key)
    # What went out is exactly what the journal stored: the same bytes.
    stored = {row.payload for row in outbox.rows}
    assert {r.payload for r in events} <= stored


def test_rows_in_flight_are_not_marked_until_the_broker_acknowledges(
        broker: Broker, signer: Signer) -> None:
    outbox = MemoryOutbox()
    pub = MqttPublisher(outbox, settings_for(broker, max_inflight=10), table=TABLE,
                        signer=signer)
    pub.start()
    try:
        wait_until(lambda: pub.connected, 10, "the publisher to connect")
        produce(outbox, signer, 5)
        pub.notify()
        wait_until(lambda: outbox.backlog() == 0, 10, "the first rows")
        broker.pause()  # the connection stays up; no PUBACK comes
        produce(outbox, signer, 30)
        pub.notify()
        wait_until(lambda: pub.state().in_flight == 10, 5, "a full window in flight")
        time.sleep(0.5)
        assert outbox.delivered_ids() == [1, 2, 3, 4, 5]
        assert pub.state().in_flight == 10, "the window bounds what is in flight"
        broker.resume()
        wait_until(lambda: outbox.backlog() == 0, 10, "the rest")
    finally:
        broker.resume()
        pub.stop()
    assert [i for call in outbox.mark_calls for i in call] == list(range(1, 36))


def test_nothing_is_marked_while_the_broker_is_down(tmp_path: Path, signer: Signer,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "station.upstream")
    broker = Broker(tmp_path / "late")  # not started: the station starts first
    outbox = MemoryOutbox()
    pub = MqttPublisher(outbox, settings_for(broker), table=TABLE, signer=signer)
    pub.start()
    try:
        t0 = time.perf_counter()
        produce(outbox, signer, 100)
        pub.notify()
        # The caller never waits for the broker, which never comes: a caller that waited
        # would be here for ever, so the bound only has to be finite (and loose for load).
        assert time.perf_counter() - t0 < 5.0
        time.sleep(2.5)  # several reconnect attempts
        assert outbox.mark_calls == []
        assert pub.backlog() == 100 and not pub.connected
        down = [r for r in caplog.records if "unavailable" in r.getMessage()]
        assert len(down) == 1, [r.getMessage() for r in caplog.records]
        assert "cannot connect" in down[0].getMessage()
        broker.start()
        sub = Subscriber(broker.port, f"baccarat/{TABLE}/events")
        wait_until(lambda: outbox.backlog() == 0, 20, "the backlog to drain")
        wait_until(lambda: len(deduped_seqs(sub.snapshot())) == 90, 10, "90 events")
        sub.close()
        assert deduped_seqs(sub.snapshot()) == [s for s in range(1, 101) if s % 10]
        back = [r for r in caplog.records if " back after " in r.getMessage()]
        assert len(back) == 1
    finally:
        pub.stop()
        broker.kill()


def test_retained_status_reaches_a_late_subscriber(broker: Broker, signer: Signer) -> None:
    outbox = MemoryOutbox()
    status = m.status(journal=NO_JOURNAL, table=TABLE, seq=1, ts=1e9, phase="paused",
                      shoe=None, round_no=None,
                      paused="card not due: 3S")
    outbox.append("status", signer.sign(status))
    pub = MqttPublisher(outbox, settings_for(broker), table=TABLE, signer=signer)
    pub.start()
    try:
        wait_until(lambda: outbox.backlog() == 0, 10, "the status to be acknowledged")
        late = Subscriber(broker.port, f"baccarat/{TABLE}/status", client_id="late",
                          clean=True)
        wait_until(lambda: bool(late.snapshot()), 5, "the retained status")
        late.close()
        first = late.snapshot()[0]
        assert first.retain
        got = json.loads(first.payload)
        assert got["paused"] == "card not due: 3S" and got["online"] is True
        verify(got, signer.public_key())
    finally:
        pub.stop()
    # A clean stop leaves a signed offline status retained.
    after = Subscriber(broker.port, f"baccarat/{TABLE}/status", client_id="after",
                       clean=True)
    wait_until(lambda: bool(after.snapshot()), 5, "the retained offline status")
    after.close()
    offline = json.loads(after.snapshot()[-1].payload)
    assert offline["online"] is False and offline["kind"] == "status"
    verify(offline, signer.public_key())


def test_last_will_is_published_when_the_station_dies(broker: Broker, tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    key_file = tmp_path / "signing-key.pem"
    key_file.write_bytes(private_pem(key))
    key_file.chmod(0o600)
    watcher = Subscriber(broker.port, f"baccarat/{TABLE}/status", client_id="watcher")
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "upstream" / "publisher_process.py"),
         str(broker.port), str(key_file)],
        stdout=subprocess.PIPE, cwd=REPO, env=os.environ | {"PYTHONPATH": str(REPO)},
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"connected"
        wait_until(lambda: any(json.loads(r.payload)["online"] for r in watcher.snapshot()),
                   10, "the online status")
        proc.send_signal(signal.SIGKILL)  # no DISCONNECT: the broker sends the will
        proc.wait(10)
        wait_until(lambda: not json.loads(watcher.snapshot()[-1].payload)["online"], 10,
                   "the last will")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        watcher.close()
    will = json.loads(watcher.snapshot()[-1].payload)
    assert will["kind"] == "status" and will["table"] == TABLE and "seq" not in will
    verify(will, key.public_key())


def _command(key: Ed25519PrivateKey, **fields: object) -> bytes:
    body = {"v": 1, "id": "c-1", "table": TABLE, "action": "resume",
            "ts": m.iso_ts(time.time()), "actor": "ann"} | fields
    return Signer(key).sign(body)


def test_commands_are_verified_and_handed_over(broker: Broker, signer: Signer) -> None:
    pit = Ed25519PrivateKey.generate()
    verifier = CommandVerifier(CommandPolicy(TABLE, {"pit": pit.public_key()}))
    results: list[Accepted | Refused] = []
    outbox = MemoryOutbox()
    pub = MqttPublisher(outbox, settings_for(broker), table=TABLE, signer=signer,
                        verifier=verifier, on_command=results.append)
    pub.start()
    sender = Subscriber(broker.port, "unused/#", client_id="pit-system", clean=True)
    try:
        wait_until(lambda: pub.connected, 10, "the publisher to connect")
        time.sleep(0.2)  # its SUBSCRIBE is on the wire right after CONNACK
        topic = f"baccarat/{TABLE}/commands"
        good = _command(pit, id="c-1")
        for payload in (good, good, b'{"v":1,"id":"x"}',
                        _command(Ed25519PrivateKey.generate(), id="c-2")):
            sender.client.publish(topic, payload, qos=1).wait_for_publish(5)
        wait_until(lambda: len(results) == 4, 10, "four command results")
    finally:
        sender.close()
        pub.stop()
    accepted, replay, unsigned, forged = results
    assert isinstance(accepted, Accepted) and accepted.sent_by == "upstream:pit/ann"
    assert isinstance(replay, Refused) and replay.reason == "replayed"
    assert isinstance(unsigned, Refused) and unsigned.reason == "unsigned"
    assert isinstance(forged, Refused) and forged.reason == "bad_signature"


def test_signed_payload_is_base64_signature(signer: Signer) -> None:
    payload = signer.sign(m.status(journal=NO_JOURNAL, table=TABLE, seq=1, ts=0.0, phase="idle",
                                   shoe=None,
                                   round_no=None, paused=None))
    assert len(base64.b64decode(json.loads(payload)["sig"])) == 64
