"""Nothing unverified is written: a forged, reordered, rewritten or missing journal message is
refused with its problem named, and the archived journal stays exactly as it was; the same
record sent again is skipped. In-process against the receiver, and once against the real
archive process and broker, where each refusal is published on <prefix>/<table>/archive."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import paho.mqtt.client as paho
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from drivers.events import Command
from station.journal import Journal
from station.services.archive.receiver import DUPLICATE, PART, REFUSED, WRITTEN, Receiver
from station.upstream.mirror import JournalMirror
from station.wire.signing import Signer, public_pem
from station.wire.signing import verify as verify_sig
from tests.archive.archivekit import (
    TABLE,
    archive_log,
    head_of,
    start_archive,
    verify,
    write_archive_config,
)
from tests.journal.journalkit import RULES, append_events
from tests.stationkit import wait_for
from tests.upstream.broker import Broker, Subscriber

STATION_KEY = Ed25519PrivateKey.generate()
SIGNER = Signer(STATION_KEY)


def mirrored(tmp: Path, count: int = 8, max_bytes: int = 128 * 1024) -> list[bytes]:
    """The mirror's messages of a journal of ``count`` records: header first (each record's
    parts in order when it is over ``max_bytes``)."""
    path = tmp / "station" / "journal.sqlite3"
    path.parent.mkdir(parents=True)
    with Journal.create(path, RULES, None, "test") as journal:
        append_events(journal, 0, count)
    mirror = JournalMirror(path, table=TABLE, signer=SIGNER)
    try:
        return [p for item in mirror.take(count + 1, max_bytes) for p in item.payloads]
    finally:
        mirror.close()


def resigned(payload: bytes, signer: Signer = SIGNER, **changes: Any) -> bytes:
    message = orjson.loads(payload)
    message.update(changes)
    return signer.sign(message)


def receiver(tmp: Path) -> Receiver:
    return Receiver(tmp / "archive", {TABLE: STATION_KEY.public_key()})


def archived_file(tmp: Path) -> Path:
    (path,) = (tmp / "archive" / TABLE).glob("*.sqlite3")
    return path


def test_in_order_records_are_written_and_a_record_sent_again_is_skipped(tmp_path: Path) -> None:
    messages = mirrored(tmp_path)
    r = receiver(tmp_path)
    assert [r.take(TABLE, m)[0] for m in messages] == [WRITTEN] * 9
    r.commit()
    assert [r.take(TABLE, m)[0] for m in messages] == [DUPLICATE] * 9
    r.close()
    path = archived_file(tmp_path)
    assert verify(path).returncode == 0
    assert head_of(path) == head_of(tmp_path / "station" / "journal.sqlite3")


@pytest.mark.parametrize(("name", "problem"), [
    ("another key", "signature"), ("edited after signing", "signature"),
    ("reordered", "gap"), ("no header", "gap"), ("content not its hash", "chain"),
    ("a different record 2", "conflict"), ("another table's", "malformed"),
    ("not JSON", "malformed"), ("a table without a key", "unknown_table"),
    ("a body that is no event", "chain")])
def test_each_bad_message_is_refused_and_nothing_is_written(tmp_path: Path, name: str,
                                                            problem: str) -> None:
    messages = mirrored(tmp_path)
    r = receiver(tmp_path)
    for m in messages[:4]:  # header, records 1-3
        assert r.take(TABLE, m)[0] == WRITTEN
    r.commit()
    path = archived_file(tmp_path)
    before = head_of(path)
    table = TABLE
    forge: dict[str, Callable[[], bytes]] = {
        "another key": lambda: resigned(messages[4], Signer(Ed25519PrivateKey.generate())),
        "edited after signing": lambda: messages[4].replace(b'"seq":4', b'"seq":5'),
        "reordered": lambda: messages[5],  # record 5 before record 4
        "no header": lambda: resigned(messages[4], journal="ab" * 32),
        "content not its hash": lambda: resigned(messages[4], mono_ts="1.5"),
        "a different record 2": lambda: resigned(messages[2], wall_ts="1767225601.5"),
        "another table's": lambda: resigned(messages[4], table="t8"),
        "not JSON": lambda: b"\xff{",
        "a table without a key": lambda: messages[4],
        "a body that is no event": lambda: resigned(messages[4], body="bm90IGFuIGV2ZW50"),
    }
    bad = forge[name]()
    if name == "a table without a key":
        table = "t9"
    outcome, finding = r.take(table, bad)
    assert outcome == REFUSED and finding is not None
    assert finding.problem == problem, finding
    assert r.commit() == ([], [])
    r.close()
    assert head_of(path) == before
    assert verify(path).returncode == 0


def test_a_record_too_large_for_a_packet_comes_in_parts_and_is_rebuilt(tmp_path: Path) -> None:
    messages = mirrored(tmp_path, max_bytes=700)
    parts = [orjson.loads(m) for m in messages if b'"part"' in m]
    assert len(parts) >= 2 and all(len(m) <= 700 for m in messages)
    r = receiver(tmp_path)
    outcomes = [r.take(TABLE, m)[0] for m in messages]
    assert outcomes.count(WRITTEN) == 9 and set(outcomes) == {WRITTEN, PART}
    r.commit()
    r.close()
    assert head_of(archived_file(tmp_path)) == head_of(tmp_path / "station" / "journal.sqlite3")


def test_a_missing_part_is_a_gap(tmp_path: Path) -> None:
    messages = mirrored(tmp_path, max_bytes=700)
    header_parts = [m for m in messages if b'"seq":0' in m]
    assert len(header_parts) >= 3
    r = receiver(tmp_path)
    assert r.take(TABLE, header_parts[0])[0] == PART
    outcome, finding = r.take(TABLE, header_parts[2])
    assert outcome == REFUSED and finding is not None and finding.problem == "gap"
    r.close()
    assert not (tmp_path / "archive" / TABLE).exists()


def publisher(port: int) -> paho.Client:
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id="forger",
                         protocol=MQTTProtocolVersion.MQTTv5)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def test_the_archive_process_refuses_and_alerts_forged_and_reordered_messages(
        tmp_path: Path, broker: Broker) -> None:
    messages = mirrored(tmp_path)
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / f"{TABLE}.pub.pem").write_bytes(public_pem(STATION_KEY.public_key()))
    config, archive_key = write_archive_config(tmp_path / "site", broker, keys)
    alerts = Subscriber(broker.port, f"baccarat/{TABLE}/archive", client_id="alerts")
    archive = start_archive(config)
    client = publisher(broker.port)
    topic = f"baccarat/{TABLE}/journal"
    try:
        wait_for(lambda: "connected" in archive_log(config), 30, "the archive")
        for m in messages[:4]:
            client.publish(topic, m, qos=1).wait_for_publish(10)
        folder = tmp_path / "site" / "journals" / TABLE
        wait_for(lambda: any(head_of(p)[0] == 3 for p in folder.glob("*.sqlite3")), 30,
                 "records 1-3 archived")
        (path,) = folder.glob("*.sqlite3")
        forged = [resigned(messages[4], Signer(Ed25519PrivateKey.generate())),  # signature
                  messages[5],  # reordered: record 5 before 4
                  resigned(messages[2], wall_ts="1767225601.5")]  # record 2 rewritten
        for m in forged:
            client.publish(topic, m, qos=1).wait_for_publish(10)
        wait_for(lambda: len(refusals(alerts)) >= 3, 30, "three alerts")
        assert head_of(path)[0] == 3
        for m in messages[4:]:  # the real records 4 on: taken, the chain goes on
            client.publish(topic, m, qos=1).wait_for_publish(10)
        wait_for(lambda: head_of(path)[0] == 8, 30, "records 4-8 archived")
    finally:
        client.disconnect()
        client.loop_stop()
        archive.send_signal(signal.SIGTERM)
        archive.wait(30)
        alerts.close()
    got = refusals(alerts)
    for alert in got:
        verify_sig(alert, archive_key.public_key())
    # An unverified message names nothing the alert could trust: no journal, no seq.
    assert [(a["kind"], a["problem"], a["seq"]) for a in got] == [
        ("archive_alert", "signature", None), ("archive_alert", "gap", 5),
        ("archive_alert", "conflict", 2)]
    log = archive_log(config)
    assert "refused (signature)" in log and "refused (gap)" in log
    assert "refused (conflict)" in log and "Traceback" not in log
    assert verify(path).returncode == 0
    assert head_of(path) == head_of(tmp_path / "station" / "journal.sqlite3")


def test_a_killed_archive_loses_nothing_it_had_received_and_not_written(
        tmp_path: Path, broker: Broker) -> None:
    """The broker is acknowledged only after the write: killed with a flood received and
    not yet written, the archive gets it again from the broker and ends whole."""
    messages = mirrored(tmp_path, count=3000)
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / f"{TABLE}.pub.pem").write_bytes(public_pem(STATION_KEY.public_key()))
    config, _ = write_archive_config(tmp_path / "site", broker, keys)
    folder = tmp_path / "site" / "journals" / TABLE
    archive = start_archive(config)
    client = publisher(broker.port)
    try:
        wait_for(lambda: "connected" in archive_log(config), 30, "the archive")
        infos = [client.publish(f"baccarat/{TABLE}/journal", m, qos=1) for m in messages]
        for info in infos:
            info.wait_for_publish(30)
        held = max((head_of(p)[0] for p in folder.glob("*.sqlite3")), default=0)
        archive.send_signal(signal.SIGKILL)
        archive.wait(10)
        assert held < 3000, "the archive wrote everything before the kill: nothing tested"
        archive = start_archive(config)
        wait_for(lambda: any(head_of(p)[0] == 3000 for p in folder.glob("*.sqlite3")), 60,
                 "every record after the restart")
    finally:
        client.disconnect()
        client.loop_stop()
        archive.send_signal(signal.SIGTERM)
        archive.wait(30)
    assert "refused (" not in archive_log(config)
    (path,) = folder.glob("*.sqlite3")
    assert verify(path).returncode == 0


def test_records_that_are_only_acknowledgements_are_not_acknowledged_again(
        tmp_path: Path) -> None:
    """The station journals each acknowledgement it takes: were the archive to acknowledge a
    head made only of its own acknowledgements, an idle table would write a record every
    few seconds for ever. Records of the game are acknowledged; acks alone are not."""
    path = tmp_path / "station" / "journal.sqlite3"
    path.parent.mkdir(parents=True)
    with Journal.create(path, RULES, None, "test") as journal:
        append_events(journal, 0, 3)
        ack = Command("archived", "upstream:dc1 [a-1]", 2000.0,
                      note="journal x seq 3 head y")
        journal.append(ack, 2000.0, 3000.0, ())
        journal.append(ack, 2001.0, 3001.0, ())
        append_events(journal, 3, 1)
    mirror = JournalMirror(path, table=TABLE, signer=SIGNER)
    try:
        messages = [p for item in mirror.take(10, 128 * 1024) for p in item.payloads]
    finally:
        mirror.close()
    r = receiver(tmp_path)
    heads = []
    for m in messages:  # one commit per record, as records arrive one by one on a calm table
        assert r.take(TABLE, m)[0] == WRITTEN
        heads.append([h.seq for h in r.commit()[0]])
    r.close()
    # header (seq 0: nothing to acknowledge), 1-3 the game, 4-5 acks, 6 the game again
    assert heads == [[], [1], [2], [3], [], [], [6]]


def refusals(alerts: Subscriber) -> list[dict[str, Any]]:
    """The archive's refusals: not its ``lag`` alert, which these journals, made before the
    test, raise (their records are old when they arrive)."""
    return [m for m in (orjson.loads(a.payload) for a in alerts.snapshot())
            if m["problem"] != "lag"]
