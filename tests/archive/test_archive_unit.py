"""systemd/dealer-archive.service passes ``systemd-analyze verify`` and the station unit's
exposure threshold (2.5), with the helpers of tests/service/test_unit.py; config/archive.yaml
loads as it ships (its key and keys folder made beside a copy)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.services.archive.config import load_archive_config
from station.wire.signing import private_pem
from tests.conftest import REPO
from tests.service.test_unit import analyze, clean, security

UNIT = REPO / "systemd" / "dealer-archive.service"


def test_the_archive_unit_passes_verify_and_the_exposure_threshold(tmp_path: Path) -> None:
    tool = analyze()
    root = tmp_path / "root"
    (root / "etc/systemd/system").mkdir(parents=True)
    installed = root / "etc/systemd/system/dealer-archive.service"
    installed.write_text(UNIT.read_text())
    lib = root / "usr/lib/systemd/system"
    lib.mkdir(parents=True)
    for target in ("sysinit.target", "basic.target", "shutdown.target",
                   "network-online.target", "multi-user.target"):
        if (Path("/usr/lib/systemd/system") / target).exists():
            shutil.copy(Path("/usr/lib/systemd/system") / target, lib / target)
    exec_start = re.search(r"^ExecStart=(\S+)", UNIT.read_text(), re.M)
    assert exec_start
    program = root / exec_start.group(1).lstrip("/")
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    done = subprocess.run([tool, "verify", f"--root={root}", str(installed)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert clean(done), done.stderr
    sec = security(tool, UNIT)
    level = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", sec.stdout)
    assert level and sec.returncode == 0 and float(level.group(1)) <= 2.5, sec.stdout[-3000:]


def test_the_shipped_archive_config_loads(tmp_path: Path) -> None:
    config = tmp_path / "archive.yaml"
    text = (REPO / "config" / "archive.yaml").read_text()
    key = tmp_path / "archive-key.pem"
    key.write_bytes(private_pem(Ed25519PrivateKey.generate()))
    key.chmod(0o600)
    config.write_text(text.replace("signing_key_file: null", "signing_key_file: archive-key.pem"))
    (tmp_path / "keys").mkdir()
    loaded = load_archive_config(config)
    assert loaded.archive.name == "dc1"
    assert loaded.tables.keys_dir == tmp_path / "keys"
    assert loaded.archive.dir == tmp_path / "var" / "archive"
    assert loaded.broker.session_expiry_s == 86400
    assert loaded.client_id() == "archive-dc1"
