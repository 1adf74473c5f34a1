"""``station run`` under a ``Type=notify`` unit, as systemd sees it: READY after start,
pings at half of WATCHDOG_USEC, STATUS, STOPPING on SIGTERM and an exit within the stop
timeout; and no READY at all when the config is wrong."""

from __future__ import annotations

import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from station.live.service.runner import STOP_TIMEOUT_S
from tests.daemon.test_daemon import config_dict
from tests.service.notifykit import NotifySocket, pings


def start(tmp: Path, cfg: dict[str, Any], env: dict[str, str]) -> subprocess.Popen[bytes]:
    path = tmp / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    with (tmp / "station.log").open("ab") as log:
        return subprocess.Popen([sys.executable, "-m", "station.cli", "run", "-c", str(path)],
                                cwd=tmp, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=log, env={**os.environ, **env})


def test_ready_pings_status_and_stopping_on_sigterm(tmp_path: Path) -> None:
    sock = NotifySocket(tmp_path)
    # A card every 0.3 s: the loop is mostly waiting, which is when the bounded wait matters.
    pace = {"card_s": 0.3, "open_betting_s": 0.3, "betting_s": 0.3, "new_shoe_s": 0.3,
            "supervisor_s": 0.3}
    proc = start(tmp_path, config_dict(tmp_path, pace=pace), sock.env(watchdog_usec=1_000_000))
    try:
        ready = sock.wait_for("READY", 30)
        assert ready["MAINPID"] == str(proc.pid)
        # READY only once the journal is open and the drivers are started.
        assert (tmp_path / "journal.sqlite3").exists()
        assert ready["STATUS"] == "no shoe"  # a new journal: before the first shoe
        seen = sock.collect(3.0)
        beats = pings(seen)
        gaps = [b - a for a, b in itertools.pairwise(beats)]
        # Every 0.5 s (half of WATCHDOG_USEC); none late enough to miss the 1 s watchdog.
        assert len(beats) >= 4 and max(gaps) < 1.0, gaps
        assert sum(gaps) / len(gaps) > 0.4, gaps  # not a busy loop of pings either
        statuses = [f["STATUS"] for _, f in seen if "STATUS" in f]
        assert any("round" in s for s in statuses), statuses  # phase, shoe and round
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        stopping = sock.wait_for("STOPPING", 10)
        assert stopping["STATUS"] == "stopping (SIGTERM)"
        proc.wait(STOP_TIMEOUT_S + 5)
        assert time.monotonic() - sent < STOP_TIMEOUT_S
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()
    log = (tmp_path / "station.log").read_text()
    assert proc.returncode == 0, log[-3000:]
    assert "Traceback" not in log


def test_a_bad_config_exits_2_and_never_says_ready(tmp_path: Path) -> None:
    sock = NotifySocket(tmp_path, abstract=True)
    cfg = config_dict(tmp_path)
    cfg["metrics"] = {"prot": 9464}
    proc = start(tmp_path, cfg, sock.env(watchdog_usec=1_000_000))
    try:
        assert proc.wait(60) == 2
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert sock.collect(0.2) == []
    sock.close()
    log = (tmp_path / "station.log").read_text()
    assert "metrics.prot: unknown key (did you mean 'port'?)" in log


def test_a_manager_that_stops_reading_never_hangs_the_table(tmp_path: Path) -> None:
    """Datagrams are sent without waiting: with the socket's buffer full, the station deals
    on and still stops on SIGTERM (a blocking send once hung the loop and the stop)."""
    sock = NotifySocket(tmp_path)
    sock.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    proc = start(tmp_path, config_dict(tmp_path), sock.env())
    try:
        sock.wait_for("READY", 30)  # then never read again: the buffer fills
        results = tmp_path / "results.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
                not results.exists() or len(results.read_text().splitlines()) < 20):
            time.sleep(0.1)
        assert len(results.read_text().splitlines()) >= 20
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(STOP_TIMEOUT_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()


def test_a_hung_loop_stops_pinging_and_its_stop_is_bounded(tmp_path: Path) -> None:
    """The dealer display writes to a pipe nobody reads: once the pipe is full the loop
    hangs inside show(). The watchdog pings stop (systemd would restart it), and SIGTERM
    ends the process within the stop timeout, with every thread's stack in the log."""
    sock = NotifySocket(tmp_path)
    cfg = config_dict(tmp_path)
    cfg["display"] = {"type": "console"}
    path = tmp_path / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    with (tmp_path / "station.log").open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "station.cli", "run", "-c", str(path)], cwd=tmp_path,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
            env={**os.environ, **sock.env(watchdog_usec=400_000)})
    try:
        sock.wait_for("READY", 30)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until a whole second passes without a ping
            if not pings(sock.collect(1.0)):
                break
        else:
            raise AssertionError("the pings never stopped: is the display pipe unbounded?")
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(STOP_TIMEOUT_S + 10)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
        sock.close()
    log_text = (tmp_path / "station.log").read_text()
    assert code == 1 and STOP_TIMEOUT_S - 1 < took < STOP_TIMEOUT_S + 5, (code, took)
    assert "most recent call first" in log_text and "displays/lines.py" in log_text
