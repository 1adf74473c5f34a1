"""systemd/dealer-pit.service passes ``systemd-analyze verify`` and an exposure of 2.5 at
most, as the station's unit (tests/service/test_unit.py), and says what docs/pit.md says."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.conftest import REPO
from tests.service.test_unit import SYSTEM_UNITS, TARGETS, analyze, clean, security

UNIT = REPO / "systemd" / "dealer-pit.service"


def _root(tmp: Path, text: str) -> Path:
    root = tmp / "root"
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system/dealer-pit.service").write_text(text)
    lib = root / SYSTEM_UNITS.relative_to("/")
    lib.mkdir(parents=True)
    for target in TARGETS:
        if (SYSTEM_UNITS / target).exists():
            shutil.copy(SYSTEM_UNITS / target, lib / target)
    for program in re.findall(r"^Exec\w+=(\S+)", text, re.M):
        path = root / program.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
    return root


def _verify(tool: str, root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool, "verify", f"--root={root}",
                           str(root / "etc/systemd/system/dealer-pit.service")],
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_pit_unit_passes_verify_and_its_broken_copy_does_not(tmp_path: Path) -> None:
    tool = analyze()
    done = _verify(tool, _root(tmp_path / "good", UNIT.read_text()))
    assert clean(done), done.stderr
    broken = UNIT.read_text().replace("Type=notify", "Type=notifyy")
    assert not clean(_verify(tool, _root(tmp_path / "bad", broken)))


def test_the_pit_unit_exposure_is_at_most_2_5() -> None:
    done = security(analyze(), UNIT)
    level = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout)
    assert level, done.stdout[-2000:] + done.stderr
    assert done.returncode == 0 and float(level.group(1)) <= 2.5, done.stdout[-3000:]


def test_the_pit_unit_runs_the_pit_as_the_docs_say() -> None:
    lines = set(UNIT.read_text().splitlines())
    for line in ("Type=notify", "NotifyAccess=main", "DynamicUser=yes",
                 "ExecStart=/opt/dealer-station/.venv/bin/station pit -c "
                 "/etc/dealer-pit/pit.yaml", "ExecReload=/bin/kill -HUP $MAINPID",
                 "StateDirectory=dealer-pit", "WorkingDirectory=/var/lib/dealer-pit",
                 "LoadCredential=signing-key:/etc/dealer-pit/credentials/pit-key.pem",
                 "PrivateDevices=yes", "ProtectSystem=strict", "NoNewPrivileges=yes"):
        assert line in lines, line
    assert "systemd/dealer-pit.service" in (REPO / "docs" / "pit.md").read_text()
