"""Every benchmark script still runs (issue 13): each in its smallest mode, in a subprocess.

Only that it exits 0 and prints its figures is checked, never a time: the figures are for
docs/benchmarks.md, measured on purpose, not by CI on a machine busy with other work.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.upstream.broker import MOSQUITTO

SMALLEST: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # script: (arguments, what its output must hold)
    "bench_speed.py": (("--quick",), ("simulate:", "replay:", "yardstick:",
                                      "Station.apply per card read", "record + settle",
                                      "station --help:", "max RSS")),
    "bench_simulate.py": (("--shoes", "1", "--repeat", "1", "--triggers", "200"),
                          ("rounds/s", "Station.apply per card read", "transitions trigger")),
    "bench_roads.py": (("--rounds", "10", "--repeat", "2"), ("Scoreboard.add",)),
    "bench_analyze.py": (("--repeat", "1"), ("end to end: ok",)),
    "bench_bet_guard.py": (("--compositions", "20", "--shoes", "1", "--repeat", "1"),
                           ("rtp of 42 bets", "bet_guard close")),
    "bench_journal.py": (("--appends", "20", "--dir", "{tmp}"), ("append p99",)),
    "bench_serial.py": (("--cards", "5"), ("target p99 < 1.0 ms",)),
    # The USB HID scanners (issue 36): key event records through a FIFO into the reader.
    "bench_hid.py": (("--cards", "5"), ("key events written -> CardRead posted",
                                        "target p99 < 1.0 ms")),
    # A scanner's line noise into the daemon (issue 18).
    "bench_noise.py": (("--mb", "0.25", "--repeat", "1"), ("resume_s", "journal_kb")),
    "bench_upstream.py": (("--cards", "5", "--outage-s", "60", "--big", "1"),
                          ("card enqueue -> PUBACK", "drain after")),
    # Benchmarks of the camera reader and of the service (issues 9 and 12).
    "bench_camera.py": (("--quick", "--frames", "100"), ("accepted misreads",)),
    "bench_service.py": (("--starts", "1"), ("start to READY",)),
    # The web display (issue 10): the loop's share only; its browser half (a whole shoe in
    # Chromium, a minute and more) is what tests/web/test_web_browser.py already drives.
    "bench_display.py": (("--pages", "2", "--repeat", "1", "--pace-s", "0", "--skip-browser",
                          "--dir", "{tmp}"), ("2 pages vs none, loop CPU",)),
    "bench_recovery.py": (("--shoes", "0", "--repeat", "1", "--dir", "{tmp}"),
                          ("recover, keeping the rounds", "recover, comparing recording",
                           "reason_zh")),
    # The table modes (issue 11): timers' cost to simulate, a squeeze's per card.
    "bench_modes.py": (("--shoes", "2", "--runs", "1"),
                       ("cost vs baseline", "squeeze, betting timer, players reveal")),
    # simulate --messages (issue 11): its cost against a plain simulate.
    "bench_messages.py": (("--runs", "1", "--shoes", "2"),
                          ("simulate --out:", "(unsigned)", "(signed)", "per message")),
    # Shoe integrity (issue 11): the per-card cost and one comparison against 100 shoes.
    "bench_integrity.py": (("--shoes", "1", "--repeat", "1", "--compares", "10"),
                           ("integrity per card read", "compare with 100 kept",
                            "the station's path with 100 kept")),
    # A fleet of simulated stations (issue 23): two tables, two seconds.
    "bench_fleet.py": (("--tables", "2", "--seconds", "2", "--fast"),
                       ("every table heard after", "per table: RSS", "stop: SIGINT to exit 0")),
    # The client library (issue 23): Floor.feed per message, with and without the schemas.
    "bench_client.py": (("--runs", "1", "--shoes", "1"), ("schemas on", "schemas off")),
    # The pit's model's memory over simulated time (issue 23): a few simulated seconds.
    # Secret checks and sign-ins (issue 31).
    "bench_secrets.py": (("--signins", "8", "--parallel", "4"), ("RSS", "checked")),
    "bench_pit_signins.py": (("--signins", "20", "--parallel", "4", "--loads", "3"),
                             ("RSS", "5 checked", "TLS adds")),
    "bench_pit_memory.py": (("--minutes", "0.1"), ("0 min", "RSS")),
    # The pit through a broker (issue 23): a few tables for a few seconds (fewer than 20
    # share the floor's and the alerts' probes), and its views over three tables.
    "bench_pit.py": (("--tables", "3", "--fast", "1", "--seconds", "4"),
                     ('"message_to_floor_ms"', '"alert_to_shown_ms"', "pit_rss_mb_by_minute")),
    "bench_pit_views.py": (("--tables", "3", "--repeat", "2"), ("floor (tables event)",
                                                                 "table t3")),
    "bench_pit_stats.py": (("--tables", "2", "--hours", "0.2", "--seeds", "1", "--runs", "1"),
                           ("report --by table", "report --by dealer", "2 tables")),
    # Journal retention (issue 24): a survey of journals moved aside, and their deletion.
    "bench_retention.py": (("--journals", "2", "--records", "50"),
                           ("survey, all to delete", "facts cached", "deleted 2")),
    # The journal mirror and the archive (issue 24): a few cards, tables and seconds.
    "bench_mirror.py": (("--cards", "20", "--blocks", "1", "--tables", "3", "--pace-s", "5",
                         "--outage-tables", "2", "--outage-s", "60"),
                        ("p99 with the mirror in clear", "TLS + sealed mirror over",
                         "at the simulated pace", "outage of 2")),
    # The station's unit under a real systemd (issue 34): one boot of the container.
    # Start-up to READY and simulate's rate (issue 35); the peer's checkout is not here.
    "bench_ready.py": (("--starts", "1"), ("spawn to READY", "minus python -c pass")),
    "bench_peer.py": (("--shoes", "1", "--reps", "1"), ("station simulate:",
                                                        "PyBaccarat: not measured")),
    "bench_units.py": (("--runs", "1"), ("READY after systemctl start, cold",
                                         "kill -9 to READY again", "systemctl stop")),
}
PRESENT = sorted(p.name for p in (REPO / "benchmarks").glob("bench_*.py"))


def test_every_benchmark_script_is_covered() -> None:
    assert set(PRESENT) <= set(SMALLEST), "add the new script's smallest mode to SMALLEST"


@pytest.mark.parametrize("script", PRESENT)
def test_a_benchmark_runs_in_its_smallest_mode(script: str, tmp_path: Path) -> None:
    brokered = ("bench_upstream.py", "bench_fleet.py", "bench_mirror.py", "bench_pit.py")
    if script in brokered and not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed: run scripts/setup --test (as root)")
    args, expected = SMALLEST[script]
    res = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script),
         *(a.format(tmp=tmp_path) for a in args)],
        cwd=REPO, capture_output=True, text=True, timeout=110, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    for text in expected:
        assert text in res.stdout, (text, res.stdout[-2000:])
