"""A real ``station run`` with the web display, for the API, browser and screenshot runs.

Two tables: the simulated one (``sim_config``), and a live one whose scanner is a pty the
test types cards into (``live_config``), so a page can run a whole round by itself.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.web import pins
from station.wire.signing import public_pem

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
PIN = "4321"
SUPERVISOR = "alice"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_pins(folder: Path) -> Path:
    path = folder / "supervisors.pins"
    pins.save(path, [pins.hash_pin(SUPERVISOR, PIN)])
    return path


def base_config(tmp: Path, *, language: str = "en", **display: Any) -> dict[str, Any]:
    write_pins(tmp)
    return {
        "table": {"id": "t5", "decks": 1},
        "reader": {"dedupe_ms": 1},
        "display": {"type": "web", "port": free_port(), "language": language,
                    "credentials_file": "supervisors.pins", **display},
        "results": {"path": str(tmp / "results.jsonl"), "announcements_path": None},
        "recording": {"dir": None},
        "journal": {"path": str(tmp / "journal.sqlite3")},
    }


def sim_config(tmp: Path, *, seed: int = 3, card_s: float = 0.02, supervisor: str = "none",
               faults: list[dict[str, Any]] | None = None, shoes: int | None = 1,
               **kw: Any) -> Path:
    cfg = base_config(tmp, **kw)
    pace = {"card_s": card_s, "open_betting_s": card_s, "betting_s": card_s,
            "new_shoe_s": card_s, "supervisor_s": card_s}
    cfg["simulation"] = {"seed": seed, "shoes": shoes, "supervisor": supervisor, "pace": pace,
                         "faults": faults or []}
    path = tmp / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def live_config(tmp: Path, port: str, **kw: Any) -> Path:
    cfg = base_config(tmp, **kw)
    cfg["reader"] = {"type": "serial", "port": port, "framing": "cr", "dedupe_ms": 1}
    path = tmp / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def mqtt_live_config(tmp: Path, port: str, broker_port: int, signer: str,
                     command_keys: dict[str, Ed25519PrivateKey],
                     table: dict[str, Any] | None = None) -> Path:
    """``live_config`` publishing to a real broker (prefix ``baccarat``), signing with the key
    file ``signer``, taking commands signed by ``command_keys`` (name -> private key; each
    public key is written beside the config)."""
    config = live_config(tmp, port)
    cfg = yaml.safe_load(config.read_text())
    cfg["table"].update(table or {})
    files = {}
    for name, k in command_keys.items():
        (tmp / f"{name}.pub.pem").write_bytes(public_pem(k.public_key()))
        files[name] = f"{name}.pub.pem"
    cfg["upstream"] = {"type": "mqtt", "host": "127.0.0.1", "port": broker_port,
                       "prefix": "baccarat", "signing_key_file": signer,
                       "reconnect_max_s": 1, "command_keys": files}
    config.write_text(yaml.safe_dump(cfg))
    return config


def url_of(config: Path) -> str:
    port = yaml.safe_load(config.read_text())["display"]["port"]
    return f"http://127.0.0.1:{port}"


def launch(config: Path) -> subprocess.Popen[bytes]:
    """``station run -c config``, its stderr to ``station.log``; not waited for."""
    with (config.parent / "station.log").open("ab") as log:
        return subprocess.Popen([sys.executable, "-m", "station.cli", "run", "-c", str(config)],
                                cwd=config.parent, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=log)


def start(config: Path) -> subprocess.Popen[bytes]:
    proc = launch(config)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError((config.parent / "station.log").read_text()[-3000:])
        try:
            call(url_of(config), "GET", "/api/state")
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("the web display never answered")


def stop(proc: subprocess.Popen[bytes], config: Path) -> str:
    """SIGTERM, a clean exit and no traceback; the log."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = (config.parent / "station.log").read_text()
    assert "Traceback" not in log, log[-3000:]
    return log


@contextmanager
def running(config: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = start(config)
    try:
        yield proc
    finally:
        stop(proc, config)


def wait_reading(proc: subprocess.Popen[bytes], port: str, timeout_s: float = 20.0) -> None:
    """Wait until the station has the scanner's port open. pyserial empties the input when it
    opens a port, so a code sent before that is lost (a CI run lost a badge so); the state's
    ``ok`` is no proof, it is true until a device is lost."""
    target = os.path.realpath(port)
    fds = Path(f"/proc/{proc.pid}/fd")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if any(os.path.realpath(fd) == target for fd in fds.iterdir()):
                time.sleep(0.2)  # the flush comes right after the open
                return
        except OSError:
            pass  # an fd closed while looking: look again
        time.sleep(0.02)
    raise AssertionError(f"the station never opened {port}")


def call(base: str, method: str, path: str, body: bytes | dict[str, Any] | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """One request; the status and the JSON answer (every answer must be JSON)."""
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    hdrs = {"Content-Type": "application/json"} if data is not None else {}
    hdrs.update(headers or {})
    req = urllib.request.Request(base + path, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    return status, json.loads(raw)


def state(base: str) -> dict[str, Any]:
    status, env = call(base, "GET", "/api/state")
    assert status == 200
    return dict(env["state"])


def wait_state(base: str, check: Any, timeout_s: float = 30, what: str = "") -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        s = state(base)
        if check(s):
            return s
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {s['phase']} {s['prompt']}")
        time.sleep(0.02)


def table_facts(s: dict[str, Any]) -> dict[str, Any]:
    """The state without what a refused request may add (its notice, and the count of
    notices the page reads to show each new one once)."""
    return {k: v for k, v in s.items()
            if k not in ("notices", "notices_zh", "notices_page", "notice_seq")}


def command(base: str, action: str, **body: Any) -> tuple[int, dict[str, Any]]:
    return call(base, "POST", f"/api/commands/{action}", body)


@contextmanager
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        if os.environ.get("STATION_SKIP_BROWSER") == "1":
            pytest.skip("Debian's chromium is not installed (STATION_SKIP_BROWSER=1)")
        pytest.fail("Debian's chromium is not installed: run scripts/setup --test as root")
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    with sync_playwright() as playwright:
        b = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                       headless=True)
        try:
            yield b
        finally:
            b.close()


def wait_text(page: Any, selector: str, words: str, timeout_s: float = 15) -> None:
    """Wait until ``selector`` shows ``words`` (in an element that is not hidden)."""
    page.wait_for_function(
        "([s, w]) => { const e = document.querySelector(s); return e && !e.closest('[hidden]')"
        " && e.textContent.includes(w); }", arg=[selector, words], timeout=timeout_s * 1000)
