"""The clock check (docs/operations.md, "The clock"): an unsynchronised system clock and a
jump of the wall clock are alerts, journaled as input events, counted in the metrics; the
clock source is injected (station.live.clock.ClockWatch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

from drivers.events import ClockAlert
from station.journal.export import read_journal, records
from station.journal.verify import verify_journal
from station.live.assembly import build_daemon
from station.live.clock import ClockWatch, kernel_synchronised
from station.live.config import parse_config
from station.live.service.runner import serve_metrics, start_service
from station.table.outputs import Announced, Notice
from station.table.station import Station
from station.wire.feed import Feed
from station.wire.observe import Snapshot
from station.wire.schema import validate
from tests.daemon.test_daemon import config_dict
from tests.service.test_metrics import scrape


class FakeClock:
    """A wall and a monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.mono = 1000.0
        self.wall = 1_764_547_200.0

    def tick(self, seconds: float) -> None:
        self.mono += seconds
        self.wall += seconds


def test_an_unsynchronised_clock_is_alerted_once_not_every_minute() -> None:
    clock = FakeClock()
    synced: list[bool | None] = [False]
    watch = ClockWatch(lambda: synced[0], wall=lambda: clock.wall, mono=lambda: clock.mono)
    assert watch.wait() == 0  # at start
    first = watch.check()
    assert [a.alert for a in first] == ["clock_unsynchronised"]
    assert watch.synchronised is False
    assert watch.check() == []  # not due yet
    for _ in range(5):  # five more minutes, still unsynchronised
        clock.tick(60)
        assert watch.wait() == 0
        assert watch.check() == []
    synced[0] = True  # synchronised again: the state, said once
    clock.tick(60)
    assert [a.alert for a in watch.check()] == ["clock_synchronised"]
    assert watch.synchronised is True
    clock.tick(60)
    assert watch.check() == []
    synced[0] = False  # lost again: a new alert
    clock.tick(60)
    assert [a.alert for a in watch.check()] == ["clock_unsynchronised"]
    synced[0] = None  # cannot tell: the state, no alert
    clock.tick(60)
    assert [a.alert for a in watch.check()] == ["clock_unknown"]
    assert watch.synchronised is None


def test_a_wall_clock_jump_over_a_second_is_alerted_with_its_size() -> None:
    clock = FakeClock()
    watch = ClockWatch(lambda: True, wall=lambda: clock.wall, mono=lambda: clock.mono)
    assert [a.alert for a in watch.check()] == ["clock_synchronised"]  # the state at start
    clock.tick(60)
    clock.wall += 0.9  # a time service's slew-sized step: not a jump
    assert watch.check() == []
    clock.tick(60)
    clock.wall -= 3.5
    (alert,) = watch.check()
    assert alert.alert == "clock_jump" and alert.ts == clock.wall
    assert "-3.500 s" in alert.detail
    clock.tick(60)
    assert watch.check() == []


def test_the_kernel_state_is_read_without_error() -> None:
    assert kernel_synchronised() in (True, False, None)


def test_the_daemon_journals_publishes_and_counts_the_clock_alerts(tmp_path: Path) -> None:
    cfg = config_dict(tmp_path, shoes=1)
    cfg["metrics"] = {"port": 0}
    cfg["clock"] = {"check": True}
    config = parse_config(tmp_path / "s.yaml", cfg)
    service = start_service(config, env={})
    assert service.metrics is not None and service.clock is not None
    jump = [0.0]
    # Checked every millisecond (many times a round), never synchronised; the wall clock
    # jumps 5 s once round 10 is dealt.
    service.clock = ClockWatch(lambda: False, wall=lambda: time.time() + jump[0],
                               every_s=0.001)
    built = build_daemon(config, outbox=service.metrics.measure)
    d = built.daemon
    try:
        serve_metrics(service, config)
        service.wire(d, table_log=False)

        def at_round_10() -> bool:
            if d.station.dealing.round_no >= 10:
                jump[0] = 5.0
            return False

        loop = threading.Thread(target=d.run, kwargs={"until": at_round_10}, daemon=True)
        loop.start()
        loop.join(100)
        assert not loop.is_alive()
        final = scrape(service.metrics_port or 0)
    finally:
        d.request_stop()  # a failed run must not keep the test's process alive
        built.close()
        service.close()
    assert final["station_clock_synchronised{}"] == 0
    assert final["station_clock_alerts_total{alert=clock_unsynchronised}"] == 1
    assert final["station_clock_alerts_total{alert=clock_jump}"] == 1

    sent = [json.loads(x) for x in (tmp_path / "upstream.jsonl").read_text().splitlines()]
    alerts = [m for m in sent if m["kind"] == "alert"]
    assert [a["alert"] for a in alerts] == ["clock_unsynchronised", "clock_jump"]
    for a in alerts:
        # The file upstream here has no key, so its messages carry no sig: the schema is
        # checked for everything else.
        validate({**a, "sig": "A" * 86 + "=="})
        assert a["by"] == "clock"
    assert alerts[1]["round"] >= 10

    # The journal holds them as input events; a replay of it raises the same alerts.
    rec = read_journal(tmp_path / "journal.sqlite3")
    station = rec.station(prompts=False)
    replayed: list[dict[str, object]] = []
    notes: list[str] = []
    events = 0
    for ev in rec.events:
        for o in station.apply(ev):
            if isinstance(o, Announced) and o.message.get("type") == "alert":
                replayed.append(o.message)
            if isinstance(o, Notice) and isinstance(ev, ClockAlert):
                notes.append(o.text)
        events += isinstance(ev, ClockAlert)
    assert events == 2
    assert [(m["alert"], m["detail"]) for m in replayed] == [
        (a["alert"], a["detail"]) for a in alerts]
    assert len(notes) == 2 and all(n.startswith("CLOCK: ") for n in notes)
    # Every status says the clock is not synchronised: the first record is that finding.
    statuses = [m for m in sent if m["kind"] == "status"]
    assert statuses and {s["clock"] for s in statuses} == {"unsynchronised"}
    assert statuses[0]["journal"]["seq"] == 0
    assert_replay_rebuilds_every_message(tmp_path / "journal.sqlite3")


def assert_replay_rebuilds_every_message(path: Path) -> None:
    """Each record's events, applied again to a fresh station with a feed that reads the
    journal's own heads, give exactly the outbox rows the daemon journaled with it: the
    statuses' clock and journal head come from the journal alone."""
    report = verify_journal(path)
    h = report.header
    station = Station(h.rules, h.paytable, session=h.session)
    head = [(report.journal_id, 0, report.journal_id)]
    feed = Feed(h.rules.table, h.rules.decks, None, head=lambda: head[0])
    rebuilt = 0
    for record in records(report):
        before = Snapshot.of(station)
        outputs = station.apply(record.event)
        assert feed.messages(before, Snapshot.of(station), record.event, outputs) == list(
            record.messages), f"record {record.seq}"
        head[0] = (report.journal_id, record.seq, record.hash)
        rebuilt += len(record.messages)
    assert rebuilt > 100


def run_station(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(config_dict(tmp_path, shoes=1)))
    env = os.environ | {"STATION_CLOCK_SOURCE": source}
    return subprocess.run([sys.executable, "-m", "station.cli", "run", "-c", str(path)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)


def test_the_clock_check_is_on_by_default_and_its_state_is_in_every_status(
        tmp_path: Path) -> None:
    done = run_station(tmp_path, "synchronised")
    assert done.returncode == 0, done.stderr
    sent = [json.loads(x) for x in (tmp_path / "upstream.jsonl").read_text().splitlines()]
    assert not [m for m in sent if m["kind"] == "alert"]
    statuses = [m for m in sent if m["kind"] == "status"]
    # The first record of a new journal is the state: its status is the table's first.
    assert sent[0] == statuses[0] and statuses[0]["phase"] == "no_shoe"
    assert {s["clock"] for s in statuses} == {"synchronised"}
    first = next(iter(read_journal(tmp_path / "journal.sqlite3").events))
    assert isinstance(first, ClockAlert) and first.alert == "clock_synchronised"
    assert "STATION_CLOCK_SOURCE=synchronised" in first.detail  # says it was not the kernel
    assert_replay_rebuilds_every_message(tmp_path / "journal.sqlite3")


def test_an_unknown_clock_source_stops_the_start(tmp_path: Path) -> None:
    done = run_station(tmp_path, "atomic")
    assert done.returncode == 2
    assert "STATION_CLOCK_SOURCE='atomic'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "journal.sqlite3").exists()


def test_a_restart_journals_the_clock_state_only_when_it_changed(tmp_path: Path) -> None:
    """The state is journaled when a check finds it other than the journal's last: once in a
    new journal, not again at a restart that finds the same, and again when it changed."""
    for source, states in (("synchronised", ["clock_synchronised"]),
                           ("synchronised", ["clock_synchronised"]),
                           ("unknown", ["clock_synchronised", "clock_unknown"])):
        done = run_station(tmp_path, source)
        assert done.returncode == 0, done.stderr
        found = [e.alert for e in read_journal(tmp_path / "journal.sqlite3").events
                 if isinstance(e, ClockAlert)]
        assert found == states, source
    statuses = [json.loads(x) for x in (tmp_path / "upstream.jsonl").read_text().splitlines()
                if json.loads(x)["kind"] == "status"]
    assert statuses[-1]["clock"] == "unknown"
