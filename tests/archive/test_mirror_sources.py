"""Which journals the station's mirror sends: the one in use from its mark, and the journals
moved aside beside it that are this table's and not yet sent to their end, oldest first; one
it cannot read is said in the log and never holds up the others."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.journal import Journal
from station.upstream.mirror import JournalMirror, mark_path, read_mark, write_mark
from station.upstream.mqtt import MqttPublisher
from station.upstream.mqttlink import MqttLink
from station.wire.signing import Signer
from tests.journal.journalkit import RULES, append_events
from tests.upstream.broker import Broker, wait_until
from tests.upstream.outboxes import MemoryOutbox

SIGNER = Signer(Ed25519PrivateKey.generate())


def journal(path: Path, table: str, count: int) -> bytes:
    with Journal.create(path, dataclasses.replace(RULES, table=table), None, "s") as j:
        append_events(j, 0, count)
        return j.journal_id


def sent(mirror: JournalMirror) -> list[tuple[str, int]]:
    items = mirror.take(1000)
    mirror.acknowledged(items)
    return [(item.journal_id.hex()[:8], item.seq) for item in items]


def test_the_journal_in_use_goes_from_its_mark_and_the_mark_follows(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    jid = journal(path, "t7", 5)
    write_mark(mark_path(path), jid, 3)
    mirror = JournalMirror(path, table="t7", signer=SIGNER)
    assert sent(mirror) == [(jid.hex()[:8], s) for s in (3, 4, 5)]
    assert read_mark(mark_path(path), jid) == 6
    assert mirror.pending() == 0
    mirror.close()
    # A mark of another journal, or a damaged one, sends the journal again from its header.
    write_mark(mark_path(path), b"\x01" * 32, 4)
    again = JournalMirror(path, table="t7", signer=SIGNER)
    assert [s for _, s in sent(again)] == [0, 1, 2, 3, 4, 5]
    again.close()


def test_moved_aside_journals_go_first_oldest_first_and_only_this_tables(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = journal(tmp_path / "journal-20260101T000000.sqlite3", "t7", 3)
    write_mark(mark_path(tmp_path / "journal-20260101T000000.sqlite3"), first, 2)
    done = journal(tmp_path / "journal-20260102T000000.sqlite3", "t7", 2)
    write_mark(mark_path(tmp_path / "journal-20260102T000000.sqlite3"), done, 3)  # all sent
    other = journal(tmp_path / "journal-20260103T000000.sqlite3", "t8", 2)
    write_mark(mark_path(tmp_path / "journal-20260103T000000.sqlite3"), other, 0)
    broken = tmp_path / "journal-20260104T000000.sqlite3"
    broken.write_bytes(b"not a journal")
    mark_path(broken).write_bytes(b"x")
    current = journal(tmp_path / "journal.sqlite3", "t7", 2)
    mirror = JournalMirror(tmp_path / "journal.sqlite3", table="t7", signer=SIGNER)
    with caplog.at_level(logging.INFO):
        got = sent(mirror)
    assert got == [(first.hex()[:8], 2), (first.hex()[:8], 3),
                   (current.hex()[:8], 0), (current.hex()[:8], 1), (current.hex()[:8], 2)]
    assert "journal-20260104T000000.sqlite3 is not mirrored" in caplog.text
    assert "journal-20260101T000000.sqlite3 is mirrored to its end first" in caplog.text
    mirror.close()


def test_each_message_names_its_table_and_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    jid = journal(path, "t7", 1)
    mirror = JournalMirror(path, table="t7", signer=SIGNER)
    header, record = (orjson.loads(i.payloads[0]) for i in mirror.take(5))
    mirror.close()
    assert (header["seq"], header["prev_seq"], header["hash"]) == (0, None, jid.hex())
    assert (record["seq"], record["prev_seq"], record["journal"]) == (1, 0, jid.hex())
    assert record["key"] == f"t7:journal:{jid.hex()}:1"


def test_a_mirror_that_cannot_read_holds_up_none_of_the_game_servers_messages(
        tmp_path: Path, broker: Broker) -> None:
    outbox = MemoryOutbox()
    for n in range(5):
        outbox.append("events", SIGNER.sign({"v": 1, "kind": "card", "n": n}))
    mirror = JournalMirror(tmp_path / "gone.sqlite3", table="t7", signer=SIGNER)
    pub = MqttPublisher(outbox, MqttLink(host="127.0.0.1",
                                                 port=broker.port), table="t7",
                        signer=SIGNER, mirror=mirror)
    pub.start()
    try:
        wait_until(lambda: outbox.backlog() == 0, 30, "the outbox delivered")
    finally:
        pub.stop(timeout_s=2.0)
