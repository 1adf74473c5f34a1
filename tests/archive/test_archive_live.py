"""The station's journal mirror and the archive, as real processes on a real Mosquitto: the
archived journal verifies and replays to the station's rounds, whatever is killed meanwhile."""

from __future__ import annotations

import random
import signal
import subprocess
import time
from pathlib import Path

import orjson
import yaml

from station.upstream.mirror import mark_path, write_mark
from station.wire.signing import verify as verify_sig
from tests.abuse.scale import pick
from tests.archive.archivekit import (
    TABLE,
    archive_log,
    caught_up,
    head_of,
    make_site,
    replay_rounds,
    start_archive,
    verify,
)
from tests.stationkit import finish, journaled, start, wait_for
from tests.upstream.broker import Broker, Subscriber


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)


def same_journal(archived: Path, station: Path) -> None:
    done = verify(archived)
    assert done.returncode == 0, done.stdout + done.stderr
    assert head_of(archived) == head_of(station)
    assert replay_rounds(archived) == replay_rounds(station)


def test_the_archive_verifies_and_replays_to_the_stations_rounds_and_acknowledges(
        tmp_path: Path, broker: Broker) -> None:
    site = make_site(tmp_path, broker, seed=41)
    acks = Subscriber(broker.port, f"baccarat/{TABLE}/commands", client_id="acks")
    archive = start_archive(site.archive_config)
    try:
        wait_for(lambda: "connected" in archive_log(site.archive_config), 30, "the archive")
        finish(start(site.station_config), site.station_config, 120)
        wait_for(lambda: caught_up(site), 60, "the archive to hold the whole journal")
        seq, head = head_of(site.journal)
        # The last acknowledgement names the journal's end, signed by the archive's key.
        wait_for(lambda: any(orjson.loads(m.payload)["seq"] == seq for m in acks.snapshot()),
                 30, "the archived acknowledgement of the last record")
    finally:
        stop(archive)
        acks.close()
    (archived,) = site.archived()
    same_journal(archived, site.journal)
    last = orjson.loads(acks.snapshot()[-1].payload)
    verify_sig(last, site.archive_key.public_key())
    assert {k: last[k] for k in ("v", "table", "action", "actor", "seq", "head")} == {
        "v": 1, "table": TABLE, "action": "archived", "actor": "dc1", "seq": seq, "head": head}
    assert archived.name.endswith(f"Z-{last['journal'][:16]}.sqlite3")  # named by the id
    assert "refused" not in archive_log(site.archive_config).split("stopped;")[0]
    assert ", 0 refused" in archive_log(site.archive_config)


def test_kill_9_of_station_and_archive_and_a_broker_restart_end_complete_and_verified(
        tmp_path: Path, broker: Broker) -> None:
    site = make_site(tmp_path, broker, seed=42)
    rng = random.Random(42)
    kills = pick(6, 30)
    archive = start_archive(site.archive_config)
    try:
        wait_for(lambda: "connected" in archive_log(site.archive_config), 30, "the archive")
        for n in range(kills):
            proc = start(site.station_config)
            target = journaled(site.journal) + rng.randint(2, 25)
            wait_for(lambda p=proc, t=target: journaled(site.journal) >= t  # type: ignore[misc]
                     or p.poll() is not None, 60, f"record {target}")
            assert proc.poll() is None, "the shoe ended before the last kill"
            kill(proc)
            if n % 3 == 0:
                kill(archive)  # anywhere: mid-write, between commit and broker ack
                archive = start_archive(site.archive_config)
            if n % 3 == 1:
                broker.stop()  # a clean stop: the sessions (and what they queue) survive
                time.sleep(rng.uniform(0.1, 1.0))
                broker.start()
        finish(start(site.station_config), site.station_config, 120)
        wait_for(lambda: caught_up(site), 120, "the archive to hold the whole journal")
        kill(archive)  # and once more after the end: a restart finds all of it on disk
        archive = start_archive(site.archive_config)
        time.sleep(1.0)
    finally:
        stop(archive)
    (archived,) = site.archived()
    same_journal(archived, site.journal)
    log = archive_log(site.archive_config)
    assert "refused (" not in log, log[-3000:]


def test_a_journal_moved_aside_is_archived_whole_in_its_own_file(tmp_path: Path,
                                                                broker: Broker) -> None:
    site = make_site(tmp_path, broker, seed=43)
    archive = start_archive(site.archive_config)
    try:
        wait_for(lambda: "connected" in archive_log(site.archive_config), 30, "the archive")
        finish(start(site.station_config), site.station_config, 120)
        wait_for(lambda: caught_up(site), 60, "the first journal archived")
        first_head = head_of(site.journal)
        # The mark only ever lags (it is not fsynced): as after a power cut, it says the
        # first journal's mirror stopped at record 5, so the next start sends it again
        # from there, to its end, before the new journal.
        write_mark(mark_path(site.journal), bytes.fromhex(archived_id(site)), 5)
        cfg = yaml.safe_load(site.station_config.read_text())
        cfg["table"]["decks"] = 6  # new rules at a shoe boundary: the journal moves aside
        site.station_config.write_text(yaml.safe_dump(cfg))
        log = finish(start(site.station_config), site.station_config, 120)
        assert "is mirrored to its end first" in log
        wait_for(lambda: caught_up(site), 60, "the second journal archived")
    finally:
        stop(archive)
    old = [p for p in site.journal.parent.glob("journal-*.sqlite3")]
    assert len(old) == 1 and head_of(old[0]) == first_head
    first, second = site.archived()
    same_journal(first, old[0])
    same_journal(second, site.journal)
    assert ", 0 refused" in archive_log(site.archive_config)


def archived_id(site: object) -> str:
    from station.journal.verify import verify_journal  # noqa: PLC0415

    return verify_journal(site.journal).journal_id.hex()  # type: ignore[attr-defined]


def test_records_larger_than_the_brokers_packet_limit_go_in_parts(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "small-broker")
    # Above every message the station publishes itself (1,036 bytes at most in this shoe),
    # below its header's and its longer records' mirror.
    with broker.conf.open("a") as conf:
        conf.write("max_packet_size 1600\n")
    broker.start()
    try:
        site = make_site(tmp_path, broker, seed=44)
        archive = start_archive(site.archive_config)
        try:
            wait_for(lambda: "connected" in archive_log(site.archive_config), 30, "archive")
            log = finish(start(site.station_config), site.station_config, 120)
            wait_for(lambda: caught_up(site), 60, "the archive to hold the whole journal")
        finally:
            stop(archive)
    finally:
        broker.stop()
    assert "a packet may carry: sent in" in log
    (archived,) = site.archived()
    same_journal(archived, site.journal)
    assert ", 0 refused" in archive_log(site.archive_config)
