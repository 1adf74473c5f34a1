"""The archive heals by itself (issue 33), real processes on a real Mosquitto: a disk that
fills while a table mirrors, then frees (also with the archive killed while it is full); a
message lost on purpose, healed through the archive's signed ``resend``.

The full disk is a real one: a 2 MiB tmpfs mounted over ``archive.dir`` (the tests run as
root; without the right to mount they are skipped, saying so), filled by a file of the
test's until the kernel says ENOSPC, and freed by deleting it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import yaml

from station.wire.signing import Signer
from station.wire.signing import verify as verify_sig
from tests.archive.archivekit import (
    ARCHIVE,
    TABLE,
    Site,
    archive_log,
    caught_up,
    head_of,
    make_site,
    start_archive,
)
from tests.archive.test_archive_live import kill, same_journal, stop
from tests.pit.pagekit import Publisher, iso_now
from tests.sampling import LONG
from tests.stationkit import FAST, finish, start, wait_for
from tests.upstream.broker import Broker, Subscriber

TMPFS_BYTES = 2 * 1024 * 1024
SLOWER = {**FAST, "card_s": 0.02, "betting_s": 0.02}


@contextlib.contextmanager
def small_disk(folder: Path) -> Iterator[Path]:
    """A tmpfs of ``TMPFS_BYTES`` mounted at ``folder`` for the test's length."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_BYTES}", "tmpfs",
                           str(folder)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def fill(folder: Path) -> Path:
    """Write a file in ``folder`` until the disk is full; the file."""
    filler = folder / "filler"
    chunk = b"\0" * 4096
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(chunk)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return filler


def archived_seq(site: Site) -> int:
    return max((head_of(p)[0] for p in site.archived()), default=-1)


def mirror_mark(site: Site) -> int:
    """The next seq the station's mirror has not had acknowledged by the broker (its mark
    file, ``<journal>-mirror``: magic, journal id, next seq, check), -1 before it has one."""
    try:
        return int((site.journal.parent / f"{site.journal.name}-mirror").read_text().split()[3])
    except (OSError, IndexError, ValueError):
        return -1


def alerts_of(sub: Subscriber) -> list[dict[str, object]]:
    return [orjson.loads(m.payload) for m in sub.snapshot()]


def run_full_disk(tmp_path: Path, broker: Broker, *, seed: int, kill_while_full: bool) -> None:
    # A dealer's pace sped up: a shoe of some 15 s, so the disk fills mid-shoe.
    site = make_site(tmp_path, broker, seed=seed, pace=SLOWER)
    alerts = Subscriber(broker.port, f"baccarat/{TABLE}/archive", client_id="alerts")
    with small_disk(site.archive_dir) as disk:
        archive = start_archive(site.archive_config)
        try:
            wait_for(lambda: "connected" in archive_log(site.archive_config), 30, "archive")
            station = start(site.station_config)
            wait_for(lambda: archived_seq(site) >= 20, 60, "the first records archived")
            filler = fill(disk)
            wait_for(lambda: "cannot write" in archive_log(site.archive_config), 60,
                     "the archive to meet the full disk")
            if kill_while_full:
                kill(archive)
                archive = start_archive(site.archive_config)
            time.sleep(2.0)  # records keep coming while the disk is full
            full_at = archived_seq(site)
            filler.unlink()  # the space returns; nobody touches the archive
            finish(station, site.station_config, 180)
            wait_for(lambda: caught_up(site), 90, "the archive to hold the whole journal")
            wait_for(lambda: any(a["problem"] == "recovered" for a in alerts_of(alerts)), 30,
                     "the recovered alert")
        finally:
            stop(archive)
            alerts.close()
        (archived,) = site.archived()
        same_journal(archived, site.journal)
    assert full_at < head_of(site.journal)[0]  # the disk was full mid-mirror
    log = archive_log(site.archive_config)
    assert "refused (gap)" not in log, log[-3000:]
    got = alerts_of(alerts)
    for alert in got:
        verify_sig(alert, site.archive_key.public_key())
    problems = [a["problem"] for a in got]
    # Said once per outage: at most one more after a kill (a new process, a new outage).
    assert 1 <= problems.count("storage") <= (2 if kill_while_full else 1), problems
    assert "gap" not in problems, problems
    if not kill_while_full:
        assert log.count("its messages are held") == 1, log[-3000:]
        assert log.count("writing again after") == 1, log[-3000:]
        assert problems.count("recovered") == 1, problems


def test_a_disk_that_fills_then_frees_ends_complete_with_nobody_acting(
        tmp_path: Path, broker: Broker) -> None:
    run_full_disk(tmp_path, broker, seed=71, kill_while_full=False)


@pytest.mark.skipif(not LONG, reason="a long run's (STATION_LONG_TESTS=1): CI runs the full "
                    "disk once, without the kill")
def test_the_same_with_the_archive_killed_while_the_disk_is_full(tmp_path: Path,
                                                                 broker: Broker) -> None:
    run_full_disk(tmp_path, broker, seed=72, kill_while_full=True)


# Long runs only, for now: about one run in four the archive meets the gap only at a record
# the station sends as it ends its shoe, and asks a station that has stopped (an idle table
# heals at its next record; issue 33 stays open on it).
@pytest.mark.skipif(not LONG, reason="STATION_LONG_TESTS=1: the gap met at the shoe's end "
                    "is asked of a stopped station (issue 33, open)")
def test_a_stretch_the_broker_lost_heals_through_resend(tmp_path: Path,
                                                         broker: Broker) -> None:
    """A broker killed while the archive is away loses the records it queued for it (and the
    archive's session): the archive meets a gap, asks with a signed resend, and the station
    sends the journal again from there. Nobody deletes a mark."""
    site = make_site(tmp_path, broker, seed=73, pace=SLOWER)
    archive = start_archive(site.archive_config)
    station = start(site.station_config)
    try:
        wait_for(lambda: archived_seq(site) >= 20, 60, "the first records archived")
        stop(archive)
        lost_from = archived_seq(site) + 1
        # Sent and acknowledged by the broker (the station's mirror mark past them), so the
        # restarted station has no reason to send them again: only the archive can ask.
        wait_for(lambda: mirror_mark(site) >= lost_from + 30, 60, "records sent")
        stop(station)  # a new process: nothing of the lost connection is sent again
        broker.kill()  # what it queued for the archive, and its session, are gone
        broker.start()
        # Subscribed before the archive is back: a subscriber of before the broker's death
        # could miss the archive's ask while it reconnects.
        commands = Subscriber(broker.port, f"baccarat/{TABLE}/commands", client_id="cmds")
        archive = start_archive(site.archive_config)
        wait_for(lambda: archive_log(site.archive_config).count("connected to") == 2, 30,
                 "the archive back")
        station = start(site.station_config)
        finish(station, site.station_config, 180)
        wait_for(lambda: caught_up(site), 90, "the gap to heal")
    finally:
        stop(archive)
        if station.poll() is None:
            kill(station)
    (archived,) = site.archived()
    same_journal(archived, site.journal)
    log = archive_log(site.archive_config)
    assert "refused (gap)" in log and "asked for journal" in log, log[-3000:]
    assert f"again from record {lost_from}" in log, log[-3000:]
    asks = [orjson.loads(m.payload) for m in commands.snapshot()]
    commands.close()
    resends = [a for a in asks if a["action"] == "resend"]
    assert resends, asks
    verify_sig(resends[0], site.archive_key.public_key())
    assert resends[0]["seq"] == lost_from
    station_log = (site.station_config.parent / "station.log").read_text()
    assert "asked for journal" in station_log, station_log[-3000:]


def prune_says(config: Path) -> str:
    done = subprocess.run([ARCHIVE, "journal", "prune", "--dry-run", "-c", str(config)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_journal_that_rotated_while_the_archive_was_away_is_acknowledged_and_pruned(
        tmp_path: Path, broker: Broker) -> None:
    site = make_site(tmp_path, broker, seed=74, pace=SLOWER)
    cfg = yaml.safe_load(site.station_config.read_text())
    cfg["journal"]["retention"] = {"days": 0, "shoes": 0}
    site.station_config.write_text(yaml.safe_dump(cfg))
    archive = start_archive(site.archive_config)
    try:
        wait_for(lambda: "connected" in archive_log(site.archive_config), 30, "the archive")
        station = start(site.station_config)
        wait_for(lambda: archived_seq(site) >= 20, 60, "the first records archived")
        stop(archive)  # away: the broker keeps the rest of the first journal for it
        finish(station, site.station_config, 120)
        first_end = head_of(site.journal)
        cfg["table"]["decks"] = 6  # new rules at a shoe boundary: the journal moves aside
        cfg["simulation"]["pace"] = SLOWER  # running while the archive comes back
        site.station_config.write_text(yaml.safe_dump(cfg))
        station = start(site.station_config)
        wait_for(lambda: len(list(site.journal.parent.glob("journal-*.sqlite3"))) == 1, 30,
                 "the journal moved aside")
        (old,) = site.journal.parent.glob("journal-*.sqlite3")
        assert "not acknowledged" in prune_says(site.station_config)
        archive = start_archive(site.archive_config)
        finish(station, site.station_config, 120)
        wait_for(lambda: caught_up(site), 60, "the second journal archived")
    finally:
        stop(archive)
    assert head_of(old) == first_end
    said = prune_says(site.station_config)
    line = next(ln for ln in said.splitlines() if old.name in ln)
    assert "delete" in line and "not acknowledged" not in line, said
    first, second = site.archived()
    same_journal(first, old)
    same_journal(second, site.journal)


def test_a_resend_for_records_the_station_no_longer_holds_is_refused_and_alerted(
        tmp_path: Path, broker: Broker) -> None:
    site = make_site(tmp_path, broker, seed=75, pace=SLOWER)
    events = Subscriber(broker.port, f"baccarat/{TABLE}/events", client_id="events")
    station = start(site.station_config)
    sender = Publisher(broker.port)
    try:
        wait_for(lambda: head_of(site.journal)[0] >= 10, 60, "the station dealing")
        gone = "e" * 64  # a journal this station does not have (deleted, say)
        ask = Signer(site.archive_key).sign({
            "v": 1, "id": "dc1:resend:gone", "table": TABLE, "ts": iso_now(),
            "action": "resend", "actor": "dc1", "journal": gone, "seq": 12})
        sender.publish([(f"baccarat/{TABLE}/commands", ask)])

        def answered() -> list[dict[str, object]]:
            return [m for m in (orjson.loads(r.payload) for r in events.snapshot())
                    if m.get("command_id") == "dc1:resend:gone" or
                    m.get("alert") == "records_unrecoverable"]

        wait_for(lambda: len(answered()) == 2, 30, "the refusal and the alert")
    finally:
        sender.close()
        events.close()
        kill(station)
    refusal, alert = sorted(answered(), key=lambda m: str(m["kind"]))[::-1]
    assert refusal["kind"] == "command_refused" and refusal["reason"] == "not_now"
    assert refusal["action"] == "resend" and "no longer on this station" in str(
        refusal["detail"])
    assert alert["kind"] == "alert" and "from record 12" in str(alert["detail"])


def test_records_arriving_later_than_max_lag_are_an_alert(tmp_path: Path,
                                                         broker: Broker) -> None:
    site = make_site(tmp_path, broker, seed=76, pace=SLOWER)
    cfg = yaml.safe_load(site.archive_config.read_text())
    cfg["archive"]["max_lag_s"] = 1
    site.archive_config.write_text(yaml.safe_dump(cfg))
    alerts = Subscriber(broker.port, f"baccarat/{TABLE}/archive", client_id="alerts")
    archive = start_archive(site.archive_config)
    station = start(site.station_config)
    try:
        wait_for(lambda: archived_seq(site) >= 5, 60, "the first records archived")
        stop(archive)  # away: what the station journals now waits in the broker
        wait_for(lambda: head_of(site.journal)[0] >= archived_seq(site) + 20, 60, "records")
        time.sleep(1.5)
        archive = start_archive(site.archive_config)
        wait_for(lambda: any(a["problem"] == "lag" for a in alerts_of(alerts)), 60,
                 "the lag alert")
    finally:
        stop(archive)
        alerts.close()
        kill(station)
    lag = next(a for a in alerts_of(alerts) if a["problem"] == "lag")
    verify_sig(lag, site.archive_key.public_key())
    assert "more than archive.max_lag_s (1 s)" in str(lag["detail"])
