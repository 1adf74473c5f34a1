"""The journal's mirror sealed for the archive (issue 32): no byte of a sealed record's content
is readable without the archive's X25519 key, the archive opens it and keeps a journal that
verifies and replays as the station's, and a record sealed for another key (or altered, or
moved to another record) is refused with problem ``sealed`` and writes nothing."""

from __future__ import annotations

import base64
import re
import signal
from pathlib import Path

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from station.errors import ConfigError
from station.journal import Journal
from station.services.archive.receiver import DUPLICATE, PART, REFUSED, WRITTEN, Receiver
from station.upstream.mirror import JournalMirror
from station.wire import sealing
from station.wire.schema import validate
from station.wire.signing import public_pem
from station.wire.signing import verify as verify_sig
from tests.archive.archivekit import (
    MIRROR_KEY,
    TABLE,
    archive_log,
    head_of,
    replay_rounds,
    start_archive,
    verify,
    write_archive_config,
)
from tests.archive.test_archive_refusals import SIGNER, STATION_KEY, publisher, resigned
from tests.journal.journalkit import RULES, append_events
from tests.stationkit import wait_for
from tests.upstream.broker import Broker, Subscriber

SEALER = sealing.Sealer(MIRROR_KEY.public_key())
OPENER = sealing.Opener(MIRROR_KEY)


def journal_of(tmp: Path, count: int) -> Path:
    path = tmp / "station" / "journal.sqlite3"
    path.parent.mkdir(parents=True)
    with Journal.create(path, RULES, None, "test") as journal:
        append_events(journal, 0, count)
    return path


def sealed(path: Path, count: int, sealer: sealing.Sealer = SEALER,
           max_bytes: int = 128 * 1024) -> list[bytes]:
    mirror = JournalMirror(path, table=TABLE, signer=SIGNER, sealer=sealer)
    try:
        return [p for item in mirror.take(count + 1, max_bytes) for p in item.payloads]
    finally:
        mirror.close()


def receiver(tmp: Path, opener: sealing.Opener | None = OPENER) -> Receiver:
    return Receiver(tmp / "archive", {TABLE: STATION_KEY.public_key()}, opener)


def test_a_sealed_record_carries_nothing_of_the_record_in_clear(tmp_path: Path) -> None:
    path = journal_of(tmp_path, 6)
    messages = sealed(path, 6)
    clear = JournalMirror(path, table=TABLE, signer=SIGNER)
    try:
        plain = [p for item in clear.take(7) for p in item.payloads]
    finally:
        clear.close()
    for payload, before in zip(messages, plain, strict=True):
        message = orjson.loads(payload)
        validate(message)
        verify_sig(message, STATION_KEY.public_key())
        assert set(message) == {"v", "kind", "table", "station_version", "seq", "prev_seq",
                                "key", "ts", "journal", "sealed", "to", "sig"}
        assert message["to"] == SEALER.kid
        # Nothing the clear message held but its envelope: no body, no event's bytes, no
        # hash (whose preimage a guess of the card would match), in any encoding.
        inside = orjson.loads(before)
        raw = base64.b64decode(message["sealed"])
        for field in ("body", "header", "hash", "wall_ts", "mono_ts"):
            if field in inside and not (field == "hash" and message["seq"] == 0):
                value = inside[field]  # (the header's hash is the journal id, public)
                assert value not in payload.decode()
                assert value.encode() not in raw
                if field in ("body", "header"):
                    assert base64.b64decode(value) not in raw
        # Padded: the length says the content's size to within a block, not exactly.
        assert (len(raw) - 32 - 16) % sealing.PAD_BYTES == 0


def test_each_record_has_its_own_key_agreement(tmp_path: Path) -> None:
    """The same record sealed twice shares no byte run an observer could match: a fresh
    ephemeral key each time."""
    path = journal_of(tmp_path, 2)
    first, second = (orjson.loads(sealed(path, 2)[1]) for _ in range(2))
    assert first["sealed"][:44] != second["sealed"][:44]  # the ephemeral public keys
    assert first["sealed"] != second["sealed"]


def test_the_archive_opens_verifies_and_replays_a_sealed_journal_as_the_stations(
        tmp_path: Path) -> None:
    path = journal_of(tmp_path, 12)
    messages = sealed(path, 12, max_bytes=700)  # parts too: each a slice of the sealed whole
    r = receiver(tmp_path)
    outcomes = [r.take(TABLE, m)[0] for m in messages]
    assert outcomes.count(WRITTEN) == 13 and set(outcomes) <= {WRITTEN, PART}
    r.commit()
    assert [r.take(TABLE, m)[0] for m in sealed(path, 12)] == [DUPLICATE] * 13
    r.close()
    (archived,) = (tmp_path / "archive" / TABLE).glob("*.sqlite3")
    assert verify(archived).returncode == 0
    assert head_of(archived) == head_of(path)
    assert replay_rounds(archived) == replay_rounds(path)


def refusal(r: Receiver, payload: bytes) -> tuple[str, str]:
    outcome, finding = r.take(TABLE, payload)
    assert outcome == REFUSED and finding is not None
    return finding.problem, finding.detail


def test_a_record_sealed_for_another_key_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    path = journal_of(tmp_path, 3)
    other = sealing.Sealer(X25519PrivateKey.generate().public_key())
    good, wrong = sealed(path, 3), sealed(path, 3, other)
    r = receiver(tmp_path)
    problem, detail = refusal(r, wrong[0])
    assert problem == "sealed" and other.kid in detail and OPENER.kid in detail
    assert "upstream.mirror_key" in detail
    assert not (tmp_path / "archive" / TABLE).exists()
    assert r.take(TABLE, good[0])[0] == WRITTEN
    assert r.take(TABLE, good[1])[0] == WRITTEN
    # A station whose mirror_key changed mid-journal: that record is refused, not written.
    problem, _ = refusal(r, wrong[2])
    assert problem == "sealed"
    r.commit()
    (archived,) = (tmp_path / "archive" / TABLE).glob("*.sqlite3")
    assert head_of(archived)[0] == 1
    r.close()


def test_a_sealed_content_that_does_not_open_or_lies_is_refused(tmp_path: Path) -> None:
    path = journal_of(tmp_path, 3)
    messages = sealed(path, 3)
    header, one, two = (orjson.loads(m) for m in messages[:3])
    r = receiver(tmp_path)
    assert r.take(TABLE, messages[0])[0] == WRITTEN
    # Record 2's sealed content under record 1's envelope (re-signed: a station that
    # mixed them up): the key schedule names the record, so it does not open.
    assert refusal(r, resigned(messages[1], sealed=two["sealed"]))[0] == "sealed"
    # A flipped byte of the ciphertext (re-signed) does not open either.
    raw = bytearray(base64.b64decode(one["sealed"]))
    raw[-1] ^= 1
    assert refusal(r, resigned(messages[1], sealed=base64.b64encode(raw).decode()))[0] == \
        "sealed"
    # Content that tries to set the envelope's fields from inside.
    lying = SEALER.seal({"header": "eA==", "hash": header["journal"], "seq": 5},
                        header["key"])
    assert refusal(r, resigned(messages[0], sealed=lying))[0] == "malformed"
    # Content of the wrong shape for its schema.
    odd = SEALER.seal({"wall_ts": "x", "mono_ts": "1.0", "body": "eA==", "messages": [],
                       "hash": "00" * 32}, one["key"])
    assert refusal(r, resigned(messages[1], sealed=odd))[0] == "malformed"
    assert r.take(TABLE, messages[1])[0] == WRITTEN
    r.close()


def test_an_archive_without_a_mirror_key_refuses_sealed_records(tmp_path: Path) -> None:
    path = journal_of(tmp_path, 1)
    r = receiver(tmp_path, opener=None)
    problem, detail = refusal(r, sealed(path, 1)[0])
    assert problem == "sealed" and "archive.mirror_key_file" in detail
    r.close()


def test_mirror_keys_are_checked_as_they_load(tmp_path: Path) -> None:
    pub = tmp_path / "k.pub.pem"
    pub.write_bytes(public_pem(STATION_KEY.public_key()))  # an Ed25519 key, not X25519
    with pytest.raises(ConfigError, match="not an X25519 key"):
        sealing.load_mirror_public(pub)
    priv = tmp_path / "k.pem"
    priv.write_bytes(sealing.private_pem(MIRROR_KEY))
    priv.chmod(0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        sealing.load_mirror_private(priv)
    priv.chmod(0o600)
    assert sealing.load_mirror_private(priv).kid == SEALER.kid
    with pytest.raises(ConfigError, match="no such file"):
        sealing.load_mirror_public(tmp_path / "none.pem")


def test_the_archive_process_alerts_a_record_sealed_for_another_key(
        tmp_path: Path, broker: Broker) -> None:
    path = journal_of(tmp_path, 4)
    other = sealing.Sealer(X25519PrivateKey.generate().public_key())
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / f"{TABLE}.pub.pem").write_bytes(public_pem(STATION_KEY.public_key()))
    config, archive_key = write_archive_config(tmp_path / "site", broker, keys)
    alerts = Subscriber(broker.port, f"baccarat/{TABLE}/archive", client_id="alerts")
    archive = start_archive(config)
    client = publisher(broker.port)
    topic = f"baccarat/{TABLE}/journal"
    folder = tmp_path / "site" / "journals" / TABLE
    try:
        wait_for(lambda: "connected" in archive_log(config), 30, "the archive")
        for m in sealed(path, 4, other)[:1] + sealed(path, 4):
            client.publish(topic, m, qos=1).wait_for_publish(10)
        wait_for(lambda: any(head_of(p) == head_of(path) for p in folder.glob("*.sqlite3")),
                 30, "the sealed journal archived")
        wait_for(lambda: any(b'"sealed"' in a.payload for a in alerts.snapshot()), 30,
                 "the alert")
    finally:
        client.disconnect()
        client.loop_stop()
        archive.send_signal(signal.SIGTERM)
        archive.wait(30)
        alerts.close()
    # The records were journaled long ago (the kit's clock): the archive's lag alert comes too.
    got = [orjson.loads(a.payload) for a in alerts.snapshot()]
    (alert,) = [a for a in got if a["problem"] != "lag"]
    verify_sig(alert, archive_key.public_key())
    assert (alert["problem"], alert["seq"]) == ("sealed", 0)
    assert re.search(rf"sealed for key '{other.kid}'", alert["detail"])
    assert "refused (sealed)" in archive_log(config)
    (archived,) = folder.glob("*.sqlite3")
    assert verify(archived).returncode == 0


def test_the_archives_check_names_its_mirror_key_and_warns_of_a_broker_in_clear(
        tmp_path: Path) -> None:
    import subprocess  # noqa: PLC0415
    from types import SimpleNamespace  # noqa: PLC0415

    from tests.archive.archivekit import ARCHIVE  # noqa: PLC0415

    keys = tmp_path / "keys"
    keys.mkdir()
    config, _ = write_archive_config(tmp_path / "site", SimpleNamespace(port=1883),  # type: ignore[arg-type]
                                     keys)
    done = subprocess.run([ARCHIVE, "archive", "--check", "-c", str(config)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert f"mirror key: records sealed for X25519 key {OPENER.kid} are opened" in done.stdout
    assert "WARN broker.tls: 127.0.0.1:1883: in clear (no TLS)" in done.stdout
