"""``station run``: the daemon loop, its threads and clean stops on signals."""

from __future__ import annotations

import itertools
import json
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import IO, Any

import pytest
import yaml

from drivers.base import EventSource
from drivers.events import DeviceRestored
from station.errors import ConfigError
from station.journal import JournalWriteError, verify_journal
from station.live import assembly
from station.live.assembly import build_daemon
from station.live.config import parse_config
from tests.conftest import REPO
from tests.streamkit import linked

FAST_PACE = {"card_s": 0.002, "open_betting_s": 0.002, "betting_s": 0.002,
             "new_shoe_s": 0.002, "supervisor_s": 0.01}


def config_dict(tmp: Path, **simulation: object) -> dict[str, object]:
    return {
        "table": {"id": "t9", "paytable": str(REPO / "config" / "paytables" / "seed000.yaml")},
        # The fast pace deals a card every 2 ms: a wider double-read window would (rightly)
        # take two identical cards in a row for one bounce.
        "reader": {"dedupe_ms": 1},
        "simulation": {"seed": 11, "pace": FAST_PACE, **simulation},
        "display": {"type": "none"},
        "results": {"path": str(tmp / "results.jsonl"),
                    "announcements_path": str(tmp / "announcements.jsonl")},
        "recording": {"dir": str(tmp / "rec")},
        "journal": {"path": str(tmp / "journal.sqlite3")},
        "upstream": {"type": "file", "path": str(tmp / "upstream.jsonl")},
    }


def test_daemon_deals_through_faults_and_stops_its_threads(tmp_path: Path) -> None:
    faults = [{"kind": "garbled", "card": 15}, {"kind": "lost", "card": 25, "seconds": 0.05},
              {"kind": "not_due", "after_round": 3}]
    cfg = parse_config(tmp_path / "s.yaml", config_dict(tmp_path, faults=faults))
    built = build_daemon(cfg)
    daemon = built.daemon
    try:
        daemon.run(until=lambda: daemon.station.dealing.round_no >= 8
                   and daemon.station.phase.value == "between_rounds")
    finally:
        built.close()
    rounds = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rounds] == list(range(1, 9))
    assert all(r["status"] == "complete" for r in rounds)  # the supervisor resumed each pause
    said = [json.loads(x) for x in (tmp_path / "announcements.jsonl").read_text().splitlines()]
    by_key = {a["key"]: a for a in said}
    for r in rounds:  # every round was announced, with the open bets it records
        assert by_key[r["key"]]["type"] == "betting_open"
        assert by_key[r["key"]]["open_bets"] == r["open_bets"]


def station_proc(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    exe = Path(sys.executable).parent / "station"
    return subprocess.Popen([str(exe), *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for_lines(path: Path, n: int, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().splitlines()) >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} did not reach {n} lines in {timeout_s} s")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_run_stops_cleanly_on_signal_and_its_recording_replays(tmp_path: Path,
                                                               sig: signal.Signals) -> None:
    cfg = tmp_path / "station.yaml"
    cfg.write_text(yaml.safe_dump(config_dict(tmp_path)))
    proc = station_proc(["run", "-c", str(cfg)], tmp_path)
    try:
        wait_for_lines(tmp_path / "results.jsonl", 5)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "stopped after" in err and "Traceback" not in err
    (rec,) = (tmp_path / "rec").iterdir()
    exe = Path(sys.executable).parent / "station"
    out = tmp_path / "replayed.jsonl"
    subprocess.run([str(exe), "replay", str(rec), "--out", str(out)], check=True,
                   capture_output=True, timeout=60)
    assert out.read_text() == (tmp_path / "results.jsonl").read_text()


def wait_for_output(stream: IO[str], text: str, timeout_s: float = 60.0) -> list[str]:
    """Read lines until one contains ``text`` (a daemon's first prompt: it is running)."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        if text in line:
            return seen
    raise AssertionError(f"no line with {text!r} in {timeout_s} s: {seen}")


def test_run_with_no_config_is_the_simulated_table(tmp_path: Path) -> None:
    proc = station_proc(["run"], tmp_path)
    try:
        assert proc.stdout is not None
        wait_for_output(proc.stdout, "NEW SHOE")  # up and showing the display, not importing
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "table sim-table-1" in err
    assert (tmp_path / "var" / "recordings").is_dir()


def test_run_stops_by_itself_when_the_simulated_shoes_are_played(tmp_path: Path) -> None:
    data = config_dict(tmp_path, shoes=1)
    data["results"] = {"path": "-", "announcements_path": None}
    data["display"] = {"type": "console"}
    cfg = tmp_path / "station.yaml"
    cfg.write_text(yaml.safe_dump(data))
    proc = station_proc(["run", "-c", str(cfg)], tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "nothing more to deal" in err
    # Results on stdout are pure JSON: the display went to stderr.
    rounds = [json.loads(line) for line in out.splitlines()]
    assert len(rounds) > 60 and rounds[-1]["status"] == "complete"
    assert "SHOE CLOSED" in err


class Crashing(EventSource):
    name = "crashy"

    def _run(self) -> None:
        raise OSError(5, "Input/output error")


def test_a_driver_that_dies_pauses_the_table_and_stops_the_daemon_with_1(tmp_path: Path) -> None:
    cfg = parse_config(tmp_path / "s.yaml", config_dict(tmp_path))
    built = build_daemon(cfg)
    daemon = built.daemon
    daemon.sources = [Crashing()]
    try:
        daemon.run()
    finally:
        built.close()
    assert daemon.exit_code == 1
    assert daemon.station.phase.value == "paused"
    assert "crashy lost (driver failed: OSError" in daemon.station.prompt.text
    assert "restart the station" in daemon.stop_reason
    (rec,) = (tmp_path / "rec").iterdir()
    last = json.loads(rec.read_text().splitlines()[-1])
    assert last["e"] == "lost" and last["src"] == "crashy"  # the pause is in the recording


def test_every_event_is_on_disk_before_the_next_one_is_applied(tmp_path: Path) -> None:
    cfg = parse_config(tmp_path / "s.yaml", config_dict(tmp_path))
    built = build_daemon(cfg)
    daemon = built.daemon
    (recording,) = (tmp_path / "rec").iterdir()
    journal = tmp_path / "journal.sqlite3"
    lag: list[tuple[int, int]] = []

    def check() -> bool:
        # Read the files as another process would, while the daemon still holds them open.
        lines = recording.read_text().count("\n")
        with closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
            (journaled,) = db.execute("SELECT count(*) FROM events").fetchone()
        lag.append((daemon.events_applied + 1 - lines, daemon.events_applied - journaled))
        return daemon.events_applied >= 200

    try:
        daemon.run(until=check)
    finally:
        built.close()
    assert len(lag) >= 200 and set(lag) == {(0, 0)}


def test_a_delay_fault_makes_the_live_dealer_wait(tmp_path: Path) -> None:
    cfg = parse_config(tmp_path / "s.yaml",
                       config_dict(tmp_path, faults=[{"kind": "delay", "card": 14,
                                                      "seconds": 0.4}]))
    built = build_daemon(cfg)
    daemon = built.daemon
    try:
        daemon.run(until=lambda: daemon.station.dealing.round_no >= 4)
    finally:
        built.close()
    (recording,) = (tmp_path / "rec").iterdir()
    events = [json.loads(x) for x in recording.read_text().splitlines()[1:]]
    cards = [e for e in events if e["e"] == "card"]
    gaps = [b["t"] - a["t"] for a, b in itertools.pairwise(cards)]
    assert max(gaps) >= 0.4 and gaps.index(max(gaps)) == 12  # before the 14th card


def test_run_with_a_bad_config_exits_2_naming_the_key(tmp_path: Path) -> None:
    cfg = tmp_path / "station.yaml"
    cfg.write_text("reader:\n  dedup_ms: 100\n")
    proc = station_proc(["run", "-c", str(cfg)], tmp_path)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert "station.yaml: reader.dedup_ms: unknown key (did you mean 'dedupe_ms'?)" in err


@pytest.mark.parametrize(
    ("section", "key"),
    [({"results": {"path": "{tmp}/file/results.jsonl"}}, "results.path: cannot append to"),
     ({"results": {"path": "{tmp}/r.jsonl", "announcements_path": "{tmp}/file/a.jsonl"}},
      "results.announcements_path: cannot append to"),
     ({"recording": {"dir": "{tmp}/file/rec"}}, "recording.dir: cannot write a recording in")],
)
def test_unwritable_outputs_exit_2_naming_the_key(tmp_path: Path, section: dict[str, object],
                                                  key: str) -> None:
    (tmp_path / "file").write_text("a file where a folder should be")
    data = config_dict(tmp_path)
    for name, value in section.items():
        assert isinstance(value, dict)
        data[name] = {k: v.replace("{tmp}", str(tmp_path)) for k, v in value.items()}
    cfg = tmp_path / "station.yaml"
    cfg.write_text(yaml.safe_dump(data))
    proc = station_proc(["run", "-c", str(cfg)], tmp_path)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2, err
    assert key in err and "Traceback" not in err


def test_two_starts_never_share_a_recording_or_a_round_key(tmp_path: Path) -> None:
    keys: list[str] = []
    for n in range(2):
        data = config_dict(tmp_path, shoes=1)
        data["journal"] = {"path": str(tmp_path / f"journal{n}.sqlite3")}  # two fresh stations
        built = build_daemon(parse_config(tmp_path / "s.yaml", data))
        d = built.daemon
        try:
            d.run(until=lambda d=d: d.station.dealing.round_no >= 2  # type: ignore[misc]
                  and d.station.phase.value == "between_rounds")
        finally:
            built.close()
    rounds = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    keys = [r["key"] for r in rounds]
    assert len(keys) == len(set(keys)) == 4
    assert len(list((tmp_path / "rec").iterdir())) == 2


def test_replay_of_the_daemons_journal_gives_its_rounds(tmp_path: Path) -> None:
    cfg = tmp_path / "station.yaml"
    cfg.write_text(yaml.safe_dump(config_dict(tmp_path, shoes=1)))
    proc = station_proc(["run", "-c", str(cfg)], tmp_path)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    exe = Path(sys.executable).parent / "station"
    out = tmp_path / "replayed.jsonl"
    subprocess.run([str(exe), "replay", str(tmp_path / "journal.sqlite3"), "--out", str(out)],
                   check=True, capture_output=True, timeout=60)
    assert out.read_text() == (tmp_path / "results.jsonl").read_text()
    # And the journal exported as a recording replays the same.
    rec = tmp_path / "exported.jsonl"
    subprocess.run([str(exe), "journal", "export", str(tmp_path / "journal.sqlite3"), "--out",
                    str(rec)], check=True, capture_output=True, timeout=60)
    out2 = tmp_path / "replayed2.jsonl"
    subprocess.run([str(exe), "replay", str(rec), "--out", str(out2)], check=True,
                   capture_output=True, timeout=60)
    assert out2.read_text() == out.read_text()


def test_changing_the_paytable_mid_shoe_is_refused_and_at_a_shoe_end_starts_a_new_journal(
        tmp_path: Path) -> None:
    data = config_dict(tmp_path, shoes=1)
    built = build_daemon(parse_config(tmp_path / "s.yaml", data))
    d = built.daemon
    try:
        d.run(until=lambda: d.station.dealing.round_no >= 3
              and d.station.phase.value == "between_rounds")
    finally:
        built.close()
    changed = dict(data)
    changed["table"] = {"id": "t9"}  # no paytable any more
    with pytest.raises(ConfigError, match="paytable changed, but a shoe is in play"):
        build_daemon(parse_config(tmp_path / "s.yaml", changed))
    built = build_daemon(parse_config(tmp_path / "s.yaml", data))  # the old settings: fine
    try:
        built.daemon.run()  # plays the shoe out
    finally:
        built.close()
    last_seq = json.loads((tmp_path / "upstream.jsonl").read_text().splitlines()[-1])["seq"]
    built = build_daemon(parse_config(tmp_path / "s.yaml", changed))
    try:
        # The new journal's first record says what changed: a config_changed.
        assert built.recovered_events == 0 and built.daemon.feed.seq == last_seq + 1
        built.daemon.run(until=lambda: built.daemon.events_applied >= 20)
    finally:
        built.close()
    archived = [p.name for p in tmp_path.glob("journal-*.sqlite3")]
    assert len(archived) == 1
    sent = [json.loads(x) for x in (tmp_path / "upstream.jsonl").read_text().splitlines()]
    change = sent[[m["seq"] for m in sent].index(last_seq + 1)]
    old_id = verify_journal(tmp_path / archived[0]).journal_id.hex()
    assert change["kind"] == "config_changed" and change["keys"] == ["table.paytable"]
    assert change["previous_journal"] == old_id  # the journal moved aside, by its id
    assert change["old"]["paytable"] is not None and change["new"]["paytable"] is None
    # A config given as data has no file: its hash is not known, the same before and after.
    assert change["old"]["config"] is None and change["new"]["config"] is None
    seqs = [m["seq"] for m in sent]
    assert seqs == list(range(1, len(seqs) + 1))  # numbering goes on across the journals
    linked(sent)  # and the events topic's prev_seq links across the restart and journals


def test_a_long_journal_moves_aside_at_a_shoe_boundary_not_mid_shoe(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assembly, "ROTATE_RECORDS", 30)
    cfg = parse_config(tmp_path / "s.yaml", config_dict(tmp_path, shoes=1))
    built = build_daemon(cfg)
    d = built.daemon
    try:
        d.run(until=lambda: d.events_applied >= 40)  # mid-shoe
    finally:
        built.close()
    built = build_daemon(cfg)
    try:
        assert built.recovered_events >= 40  # kept: a shoe is in play
        built.daemon.run()  # plays the shoe out
    finally:
        built.close()
    assert not list(tmp_path.glob("journal-*.sqlite3"))
    last_seq = json.loads((tmp_path / "upstream.jsonl").read_text().splitlines()[-1])["seq"]
    built = build_daemon(cfg)
    try:
        assert built.recovered_events == 0 and built.daemon.feed.seq == last_seq
    finally:
        built.close()
    assert len(list(tmp_path.glob("journal-*.sqlite3"))) == 1


def test_run_with_a_serial_reader_says_what_it_cannot_do_yet(tmp_path: Path) -> None:
    data = config_dict(tmp_path)
    data["reader"] = {"type": "serial", "port": "/dev/ttyUSB9"}
    # Without the web display there are no dealer buttons (tests/web/test_web_config.py).
    with pytest.raises(ConfigError, match=r"reader\.type serial: a live table needs the dealer"):
        build_daemon(parse_config(tmp_path / "s.yaml", data))
    assert not (tmp_path / "journal.sqlite3").exists()  # refused before touching anything


class Chatty(EventSource):
    """A device that keeps talking (every 5 ms) whatever the display says."""

    name = "chatty"

    def _run(self) -> None:
        while not self.stopping.wait(0.005):
            self.post(DeviceRestored(self.name, time.time()))


class FullDisk:
    """The journal as seen through a disk that fills and empties: a seam at the file-system
    boundary (the real full disk is tests/journal/test_durability.py's tmpfs)."""

    def __init__(self, journal: Any) -> None:
        self.journal = journal
        self.full = False

    def append(self, *args: Any, **kwargs: Any) -> int:
        if self.full:
            raise JournalWriteError("record not journaled: the disk is full (test)")
        seq: int = self.journal.append(*args, **kwargs)
        return seq

    def __getattr__(self, name: str) -> Any:
        return getattr(self.journal, name)


def test_the_journal_is_retried_on_time_while_a_device_keeps_sending(tmp_path: Path) -> None:
    built = build_daemon(parse_config(tmp_path / "s.yaml", config_dict(tmp_path)))
    d = built.daemon
    disk = FullDisk(d.journal)
    d.journal = disk  # type: ignore[assignment]
    d.sources = [Chatty()]
    disk.full = True
    backstopped: list[bool] = []

    def backstop() -> None:  # the test fails, never hangs
        backstopped.append(True)
        d.request_stop()

    timers = [threading.Timer(0.3, lambda: setattr(disk, "full", False)),
              threading.Timer(10, backstop)]
    for t in timers:
        t.start()
    try:
        d.run(until=lambda: d.outage_count == 1 and not d._outage)
    finally:
        for t in timers:
            t.cancel()
        built.close()
    assert d.outage_count == 1 and not d._outage
    # The retry came while the device kept sending, not when the backstop stopped the loop.
    assert not backstopped
    assert "journal lost (not writable" in " ".join(d.station.dealing.pause_reasons)
