"""`station ctl` against real stations: what each exit code promises (docs/display.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.events import Command
from station.journal import read_journal
from station.live.assembly import build_daemon
from station.live.config import parse_config
from tests import webkit
from tests.web.test_web_words import FullDisk


def ctl(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "STATION_PIN"}
    clean.update(env or {})
    return subprocess.run([sys.executable, "-m", "station.cli", "ctl", *args], check=False,
                          capture_output=True, text=True, timeout=60, env=clean,
                          input=stdin if stdin is not None else "", cwd=cwd)


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, FullDisk]]:
    """A real daemon with the web display whose journal cannot be written: it holds every
    event, so nothing posted to it is applied until the disk is freed."""
    cfg = webkit.base_config(tmp_path)
    cfg["simulation"] = {"seed": 3, "supervisor": "none",
                         "pace": dict.fromkeys(("card_s", "open_betting_s", "betting_s",
                                                "new_shoe_s", "supervisor_s"), 0.05)}
    config = parse_config(tmp_path / "station.yaml", cfg)
    (tmp_path / "station.yaml").write_text(json.dumps(cfg))  # for `ctl -c`
    built = build_daemon(config)
    d = built.daemon
    disk = FullDisk(d.journal)
    disk.full.set()
    d.journal = disk  # type: ignore[assignment]
    loop = threading.Thread(target=d.run, name="daemon", daemon=True)
    loop.start()
    try:
        yield tmp_path / "station.yaml", disk
    finally:
        d.request_stop()
        loop.join(30)
        built.close()


def test_taken_but_not_applied_is_exit_3_never_done(held: tuple[Path, FullDisk]) -> None:
    config, disk = held
    done = ctl("new-shoe", "-c", str(config), "--actor", "tech")
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""  # nothing says "done"
    assert "station ctl new-shoe: taken, not yet applied" in done.stderr
    assert "check `station ctl status`" in done.stderr
    # --json prints the API's own 202 answer, and the exit code is the same.
    done = ctl("close-betting", "-c", str(config), "--json")
    assert done.returncode == 3
    assert json.loads(done.stdout) == {
        "ok": None, "action": "close_betting", "queued": True,
        "detail": "taken but not yet applied (the station is holding events); watch the page"}
    # Taken, really: once the disk is freed both commands reach the journal.
    disk.full.clear()
    journal = config.parent / "journal.sqlite3"
    end = time.monotonic() + 30
    while True:
        ours = [(e.action, e.actor) for e in read_journal(journal).events
                if isinstance(e, Command) and "(web " in e.actor]
        if len(ours) == 2:
            break
        assert time.monotonic() < end, ours
        time.sleep(0.1)
    assert ours == [("new_shoe", "tech (web 127.0.0.1)"),
                    ("close_betting", "technician (web 127.0.0.1)")]


@pytest.fixture
def paused_at(tmp_path: Path) -> Iterator[str]:
    """A simulated table paused mid-round on an unreadable card; nothing moves."""
    config = webkit.sim_config(tmp_path, faults=[{"kind": "garbled", "card": 20}])
    with webkit.running(config):
        base = webkit.url_of(config)
        webkit.wait_state(base, lambda s: "re-scanned as" in s["prompt"]["text"],
                          what="the re-scan")
        yield base


def test_url_json_and_the_pin_from_standard_input(paused_at: str, tmp_path: Path) -> None:
    base = paused_at
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # No config/station.yaml where it runs: --url alone names the station.
    done = ctl("status", "--url", base + "/", "--json", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    envelope = json.loads(done.stdout)
    assert envelope["state"]["paused"] is True and envelope["version"] >= 1
    # The PIN comes from standard input: a wrong one there is refused, the right one voids.
    done = ctl("void", "--url", base, stdin="9999\n", cwd=elsewhere)
    assert done.returncode == 1 and "wrong PIN" in done.stderr
    done = ctl("void", "--url", base, "--json", "--actor", "sup", stdin=webkit.PIN + "\n",
               cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["ok"] is True and answer["action"] == "void"
    assert answer["by"] == "alice (web 127.0.0.1)"
    assert answer["state"]["paused"] is False
    done = ctl("status", "--url", "ftp://" + base.removeprefix("http://"))
    assert done.returncode == 2 and "give http://HOST:PORT" in done.stderr
