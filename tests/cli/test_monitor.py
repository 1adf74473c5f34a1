"""``station monitor``: what a real serial line sends, through the real driver, as JSON."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from drivers.sim_serial import PtyScanner

Lines = Callable[[], dict[str, Any]]


@contextmanager
def monitoring(tmp_path: Path, reader: dict[str, Any], *extra: str
               ) -> Iterator[tuple[PtyScanner, Lines, subprocess.Popen[str]]]:
    """``station monitor`` on a pty scanner, its port open; SIGINT and the exit at the end."""
    with PtyScanner(tmp_path / "scanner") as pty:
        cfg = tmp_path / "station.yaml"
        cfg.write_text(yaml.safe_dump({"reader": {"type": "serial", "port": pty.path,
                                                  **reader}}))
        proc = subprocess.Popen(
            [sys.executable, "-m", "station.cli", "monitor", *extra, "-c", str(cfg)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None and proc.stdout is not None
        out = proc.stdout
        try:
            assert "Ctrl-C stops" in proc.stderr.readline()
            # What a scanner sends before its port is open is lost: wait until it is.
            assert proc.stderr.readline().strip().endswith(" open")
            yield pty, lambda: dict(json.loads(out.readline())), proc
            proc.send_signal(signal.SIGINT)
            proc.wait(10)
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()


def test_monitor_prints_each_code_as_it_comes_and_stops_on_sigint(tmp_path: Path) -> None:
    with monitoring(tmp_path, {"framing": "cr", "cut_code": "CUTCARD"}) as (pty, line, proc):
        pty.write(b"AS\r10h\rCUTCARD\rZZ\r\xff\xfe\r")
        lines = [line() for _ in range(5)]
    assert proc.returncode == 0
    assert [(x["e"], x.get("code")) for x in lines[:3]] == [("card", "AS"), ("card", "TH"),
                                                            ("cut", None)]
    assert [(x["e"], x["reason"]) for x in lines[3:]] == [("error", "unknown"),
                                                         ("error", "not_utf8")]
    assert all(x["src"] == "scanner" and x["t"] > 1e9 for x in lines)


def test_monitor_with_the_simulated_table_says_there_is_no_device(tmp_path: Path) -> None:
    cfg = tmp_path / "station.yaml"
    cfg.write_text("reader: {type: simulated}\n")
    done = subprocess.run([sys.executable, "-m", "station.cli", "monitor", "-c", str(cfg)],
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2
    assert "there is no device to monitor" in done.stderr


def test_monitor_raw_shows_the_bytes_before_what_they_mean(tmp_path: Path) -> None:
    with monitoring(tmp_path, {}, "--raw") as (pty, line, proc):
        pty.write(b"QH\r")
        lines = [line()]
        while lines[-1]["e"] == "raw":  # the bytes may come in more than one read
            lines.append(line())
    assert proc.returncode == 0
    assert "".join(x["bytes"] for x in lines[:-1]) == "QH\\x0d"
    assert (lines[-1]["e"], lines[-1]["code"]) == ("card", "QH")
