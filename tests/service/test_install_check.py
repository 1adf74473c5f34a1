"""station install-service into a temporary root, and station check-config: a test per kind
of config mistake, each naming the file, the key and the fix, and each stopping station run
before READY."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from station.live.config import load_config
from tests.daemon.test_daemon import config_dict
from tests.service.notifykit import NotifySocket

ETC = Path("etc")


def station(*args: str, cwd: Path, env: dict[str, str] | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, check=False)


def test_install_service_puts_every_promised_file_and_never_overwrites_the_config(
        tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    done = station("install-service", "--root", str(root), "--exec-start",
                   "/opt/dealer-station/.venv/bin/station", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    unit = root / "etc/systemd/system/dealer-station.service"
    rules = root / "etc/udev/rules.d/99-dealer-station.rules"
    config = root / "etc/dealer-station/station.yaml"
    creds = root / "etc/dealer-station/credentials"
    for path in (unit, rules, config, root / "etc/dealer-station/paytables/seed000.yaml"):
        assert path.is_file() and f"wrote     {path}" in done.stdout
    assert creds.is_dir() and creds.stat().st_mode & 0o777 == 0o700
    assert ("ExecStart=/opt/dealer-station/.venv/bin/station run -c "
            "/etc/dealer-station/station.yaml") in unit.read_text()
    assert "SYMLINK+=\"dealer-scanner\"" in rules.read_text()
    assert "systemctl daemon-reload && systemctl enable --now dealer-station" in done.stdout
    # The skeleton is a valid config as installed (its paytable beside it).
    assert load_config(config).rules.table == "table-1"
    # Again, after the operator edited the config: theirs is kept, ours are unchanged.
    config.write_text(config.read_text().replace("id: table-1 ", "id: table-9 "))
    again = station("install-service", "--root", str(root), "--exec-start",
                    "/opt/dealer-station/.venv/bin/station", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"kept      {config} (yours; not overwritten)" in again.stdout
    assert f"unchanged {unit}" in again.stdout
    assert load_config(config).rules.table == "table-9"


def test_install_service_warns_of_a_station_under_a_home_directory(tmp_path: Path) -> None:
    # docs/operations.md: the unit hides /home (ProtectHome=yes), so a station installed there
    # cannot start; install-service says so, and where to put it instead.
    root = tmp_path / "root"
    root.mkdir()
    done = station("install-service", "--root", str(root), "--exec-start",
                   "/home/u/.venv/bin/station", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "WARNING: /home/u/.venv/bin/station is under a home directory" in done.stdout
    assert "install the station under /opt" in done.stdout
    opt = station("install-service", "--root", str(root), "--exec-start",
                  "/opt/dealer-station/.venv/bin/station", cwd=tmp_path)
    assert "WARNING" not in opt.stdout


def test_install_service_replaces_an_old_unit_keeping_it(tmp_path: Path) -> None:
    unit = tmp_path / "etc/systemd/system/dealer-station.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nType=simple\n")
    done = station("install-service", "--root", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Type=notify" in unit.read_text()
    assert unit.with_name(unit.name + ".old").read_text() == "[Service]\nType=simple\n"


def test_install_service_into_a_root_it_cannot_write_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = station("install-service", "--root", str(blocker), cwd=tmp_path)
    assert done.returncode == 2 and "not a folder" in done.stderr
    (tmp_path / "etc").write_text("a file where a folder must be")
    done = station("install-service", "--root", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and "cannot write" in done.stderr
    assert "Traceback" not in done.stderr


def write(tmp: Path, cfg: dict[str, Any]) -> Path:
    path = tmp / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def mistakes(tmp: Path) -> dict[str, tuple[dict[str, Any], str, str]]:
    """name: (config, key named, the fix named)."""
    blocked = tmp / "blocked"
    blocked.write_text("a file, not a folder")
    base = config_dict(tmp)

    def with_(section: str, **values: Any) -> dict[str, Any]:
        cfg = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
        cfg[section] = {**cfg.get(section, {}), **values}  # type: ignore[dict-item]
        return cfg

    return {
        "unknown key": (with_("table", decsk=8), "table.decsk", "did you mean 'decks'?"),
        "wrong type": (with_("table", decks="eight"), "table.decks", "8 decks"),
        "bad paytable": (with_("table", paytable="paytables/nope.yaml"), "table.paytable",
                         "name a paytable relative to this config's folder"),
        "unwritable state directory": (
            with_("journal", path=str(blocked / "journal.sqlite3")), "journal.path",
            "writable by the station's user"),
        "metrics port type": (with_("metrics", port="http"), "metrics.port",
                              "or null for none"),
        "credential outside the unit": (
            with_("upstream", signing_key_file="${CREDENTIALS_DIRECTORY}/signing-key"),
            "upstream.signing_key_file", "LoadCredential=signing-key:FILE"),
    }


MISTAKES = ["unknown key", "wrong type", "bad paytable", "unwritable state directory",
            "metrics port type", "credential outside the unit"]


@pytest.mark.parametrize("name", MISTAKES)
def test_each_config_mistake_names_file_key_and_fix_and_stops_before_ready(
        tmp_path: Path, name: str) -> None:
    cfg, key, fix = mistakes(tmp_path)[name]
    path = write(tmp_path, cfg)
    env = {k: v for k, v in os.environ.items() if k != "CREDENTIALS_DIRECTORY"}
    checked = subprocess.run([sys.executable, "-m", "station.cli", "check-config", "-c",
                              str(path)], cwd=tmp_path, capture_output=True, text=True,
                             timeout=60, env=env, check=False)
    sock = NotifySocket(tmp_path)
    try:
        run = subprocess.run([sys.executable, "-m", "station.cli", "run", "-c", str(path)],
                             cwd=tmp_path, capture_output=True, text=True, timeout=60,
                             env={**env, **sock.env(watchdog_usec=2_000_000)}, check=False)
        assert sock.collect(0.2) == []  # never READY
    finally:
        sock.close()
    for done in (checked, run):
        said = done.stdout + done.stderr
        assert done.returncode != 0, done
        assert str(path) in said and key in said and fix in said, said
        assert "Traceback" not in said
    assert run.returncode == 2
    # check-config: 2 for a config that does not load, 1 for a place it cannot write.
    assert checked.returncode == (1 if name == "unwritable state directory" else 2)


def test_a_missing_device_is_a_problem_check_config_names(tmp_path: Path) -> None:
    cfg = config_dict(tmp_path)
    cfg["reader"] = {"type": "serial", "port": str(tmp_path / "no-such-tty")}
    cfg["cut_card"] = {"type": "modem_pin", "port": "nope://adapter"}  # no such URL kind
    done = station("check-config", "-c", str(write(tmp_path, cfg)), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"FAIL reader.port: {tmp_path / 'no-such-tty'} cannot be opened" in done.stdout
    assert "FAIL cut_card.port: nope://adapter cannot be opened" in done.stdout
    assert "udev rule" in done.stdout
    assert "2 problem(s)" in done.stdout


def test_check_config_opens_a_serial_port_and_reads_the_cut_card_pin(tmp_path: Path) -> None:
    controller, tty = os.openpty()  # a real tty, as a USB scanner's /dev/ttyACM0 is
    try:
        cfg = config_dict(tmp_path)
        port = os.ttyname(tty)
        cfg["reader"] = {"type": "serial", "port": port}
        cfg["cut_card"] = {"type": "modem_pin", "port": "loop://", "pin": "cts"}
        done = station("check-config", "-c", str(write(tmp_path, cfg)), cwd=tmp_path)
    finally:
        os.close(controller)
        os.close(tty)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"ok   reader.port: {port} opened at 9600 baud" in done.stdout
    assert "ok   cut_card.port: loop:// opened; CTS is" in done.stdout
    assert done.stdout.rstrip().endswith("all good")


def test_check_config_connects_to_the_broker(tmp_path: Path, broker: Any) -> None:
    cfg = config_dict(tmp_path)
    (tmp_path / "keys").mkdir()
    assert station("keygen", str(tmp_path / "keys"), cwd=tmp_path).returncode == 0
    cfg["upstream"] = {"type": "mqtt", "host": "127.0.0.1", "port": broker.port,
                       "signing_key_file": "keys/signing-key.pem"}
    done = station("check-config", "-c", str(write(tmp_path, cfg)), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"ok   upstream: 127.0.0.1:{broker.port}: the broker accepted" in done.stdout
    broker.kill()
    down = station("check-config", "-c", str(write(tmp_path, cfg)), cwd=tmp_path)
    assert down.returncode == 1
    assert f"FAIL upstream: 127.0.0.1:{broker.port}: cannot connect" in down.stdout


def test_check_config_finds_the_metrics_port_taken(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        cfg = config_dict(tmp_path)
        cfg["metrics"] = {"port": taken.getsockname()[1]}
        done = station("check-config", "-c", str(write(tmp_path, cfg)), cwd=tmp_path)
    assert done.returncode == 1 and "FAIL metrics.port" in done.stdout


def test_check_config_reads_credentials_as_the_unit_passes_them(tmp_path: Path) -> None:
    creds = tmp_path / "credentials"
    creds.mkdir()
    assert station("keygen", str(creds), cwd=tmp_path).returncode == 0
    cfg = config_dict(tmp_path)
    cfg["upstream"] = {"type": "file", "path": str(tmp_path / "up.jsonl"),
                       "signing_key_file": "${CREDENTIALS_DIRECTORY}/signing-key"}
    path = write(tmp_path, cfg)
    done = station("check-config", "-c", str(path), "--credentials", str(creds), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok   upstream.signing_key_file" in done.stdout and "Ed25519" in done.stdout
