"""A fleet under test: a member config at fast pace for a test's broker, and the
``station fleet`` process with its report lines read as they come."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

from tests.conftest import REPO
from tests.upstream.broker import wait_until

STARTED = re.compile(r"^fleet: table (\S+) pid (\d+) journal (.+)$")


def fleet_config(folder: Path, port: int, **extra: str) -> Path:
    """A fleet config in ``folder`` naming its paytable relative to itself (a derived
    config must still find it from its own folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "config" / "paytables", folder / "paytables", dirs_exist_ok=True)
    path = folder / "fleet.yaml"
    path.write_text(
        "table: {id: t, paytable: paytables/seed000.yaml}\n"
        "reader: {type: simulated}\n"
        "simulation:\n"
        "  supervisor: resume\n"
        "  pace: {card_s: 0.2, open_betting_s: 0.05, betting_s: 0.1, new_shoe_s: 0.2,\n"
        "         supervisor_s: 0.2}\n"
        f"upstream: {{type: mqtt, host: 127.0.0.1, port: {port}, keepalive_s: 5}}\n"
        + "".join(f"{k}: {v}\n" for k, v in extra.items()),
        encoding="utf-8")
    return path


class Fleet:
    """``station fleet`` as a process; ``lines`` are its stdout lines so far."""

    def __init__(self, config: Path, tables: int, directory: Path,
                 env: dict[str, str] | None = None) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "station.cli", "fleet", "-c", str(config), "--tables",
             str(tables), "--dir", str(directory)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=None if env is None else {**os.environ, **env})
        self._reader = threading.Thread(target=self._read, name="fleet-stdout", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._lock:
                self.lines.append(line.rstrip("\n"))

    def snapshot(self) -> list[str]:
        with self._lock:
            return list(self.lines)

    def started(self, tables: int) -> dict[str, int]:
        """Table id to pid, once every table's start line is out."""
        def all_out() -> bool:
            return sum(1 for x in self.snapshot() if STARTED.match(x)) == tables
        wait_until(all_out, 60, f"{tables} start lines; got {self.snapshot()}", 0.05)
        return {m[1]: int(m[2]) for x in self.snapshot() if (m := STARTED.match(x))}

    def stop(self, sig: int = signal.SIGINT, timeout_s: float = 90) -> int:
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout_s)
        self._reader.join(10)
        return code

    def close(self) -> None:
        """After a failed test: never leave a fleet (its tables end with it) running."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)
        self._reader.join(10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def gone(pid: int) -> bool:
    """No process ``pid`` (a zombie counts as gone: it runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"
