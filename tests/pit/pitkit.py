"""The pit under test: its folder (key, PINs, config), the ``station pit`` process, a small
HTTP client for its API, and a fleet config whose tables take the pit's commands."""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from station.web import pins
from station.wire.keyfiles import write_pair
from tests.conftest import REPO
from tests.upstream.broker import free_port, wait_until

BOSS, BOSS_PIN = "ann", "4711"
OTHER, OTHER_PIN = "bob", "9090"


class PitFolder:
    """A pit's files: its key pair, its bosses' PINs, the tables' keys folder."""

    def __init__(self, folder: Path) -> None:
        self.dir = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.private, self.public = folder / "pit.pem", folder / "pit.pub.pem"
        if not self.private.exists():
            write_pair(self.private, self.public)
        self.pins = folder / "pit.pins"
        pins.save(self.pins, [pins.hash_pin(BOSS, BOSS_PIN), pins.hash_pin(OTHER, OTHER_PIN)])
        self.port = free_port()

    def config(self, broker_port: int, keys_dir: Path, *, name: str = "pit",
               extra_broker: str = "", extra_pit: str = "") -> Path:
        path = self.dir / "pit.yaml"
        path.write_text(
            f"broker: {{host: 127.0.0.1, port: {broker_port}, prefix: baccarat, "
            f"keepalive_s: 5{extra_broker}}}\n"
            f"tables: {{keys_dir: {keys_dir}}}\n"
            f"pit: {{name: {name}, host: 127.0.0.1, port: {self.port}, "
            f"signing_key_file: pit.pem, pins_file: pit.pins, "
            f"journal: {self.dir / 'var' / 'pit.sqlite3'}{extra_pit}}}\n", encoding="utf-8")
        return path

    @property
    def journal(self) -> Path:
        return self.dir / "var" / "pit.sqlite3"


def fleet_config(folder: Path, broker_port: int, pit_public: Path, *,
                 faults: str = "[]", supervisor: str = "none", table: str = "t",
                 card_s: float = 0.2, table_extra: str = "") -> Path:
    """A fast fleet whose tables take the pit's signed commands (upstream.command_keys)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "config" / "paytables", folder / "paytables", dirs_exist_ok=True)
    path = folder / "fleet.yaml"
    path.write_text(
        f"table: {{id: {table}, paytable: paytables/seed000.yaml{table_extra}}}\n"
        "reader: {type: simulated}\n"
        "simulation:\n"
        f"  supervisor: {supervisor}\n"
        f"  faults: {faults}\n"
        f"  pace: {{card_s: {card_s}, open_betting_s: 0.05, betting_s: 0.1, new_shoe_s: 0.2,\n"
        "         supervisor_s: 0.2}\n"
        f"upstream: {{type: mqtt, host: 127.0.0.1, port: {broker_port}, keepalive_s: 5,\n"
        f"           command_keys: {{pit: {pit_public}}}}}\n",
        encoding="utf-8")
    return path


class Pit:
    """``station pit -c CONFIG`` as a process, and its API."""

    def __init__(self, config: Path, port: int, *, ca: Path | None = None) -> None:
        """``ca``: the pit serves HTTPS (pit.tls) with a certificate of this CA's."""
        self.port = port
        self.base = f"{'https' if ca else 'http'}://127.0.0.1:{port}"
        self.context = None if ca is None else ssl.create_default_context(cafile=str(ca))
        self.err: list[str] = []
        # How long a request may wait for its answer (a liveness bound, not a measure): the
        # screenshots' script raises it on a machine shared with other work.
        self.timeout_s = 30.0
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "station.cli", "pit", "-c", str(config)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        wait_until(self._up, 60, f"the pit answering on {port}; stderr: {self.err}", 0.1)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err.append(line.rstrip("\n"))

    def _up(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"the pit exited {self.proc.returncode}: {self.err}")
        try:
            self.get("/api/tables")
        except OSError:
            return False
        return True

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s,
                                        context=self.context) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def get(self, path: str) -> Any:
        status, body = self.request("GET", path)
        assert status == 200, (status, body)
        return body

    def tile(self, table: str) -> dict[str, Any] | None:
        return next((t for t in self.get("/api/tables")["tables"] if t["table"] == table),
                    None)

    def alerts(self, **match: Any) -> list[dict[str, Any]]:
        return [a for a in self.get("/api/alerts")["alerts"]
                if all(a.get(k) == v for k, v in match.items())]

    def act(self, table: str, action: str, **body: Any) -> tuple[int, Any]:
        return self.request("POST", f"/api/tables/{table}/commands/{action}",
                            {"name": BOSS, "pin": BOSS_PIN, **body})

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
        code = self.proc.wait(30)
        self._reader.join(10)
        return code

    def close(self) -> None:
        """After a test, passed or not: no pit left running, no pipe left open."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)
        self._reader.join(10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
