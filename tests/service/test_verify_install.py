"""``station verify-install`` on the installed wheel: every file against RECORD's hash
(docs/operations.md, "Checking the install")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from station.cli import main
from tests.service.wheelkit import build_wheel, install, run


def test_an_installed_wheel_verifies_and_one_changed_byte_is_named(tmp_path: Path) -> None:
    env = tmp_path / "venv"
    purelib = install(build_wheel(tmp_path), env)
    station = str(env / "bin" / "station")
    here = tmp_path / "elsewhere"
    here.mkdir()

    clean = run(station, "verify-install", cwd=here)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "all " in clean.stdout and "match their RECORD hashes" in clean.stdout

    # One byte of one installed module (one the command itself does not import).
    target = purelib / "station" / "betguard.py"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    changed = run(station, "verify-install", cwd=here)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert f"changed: {target}" in changed.stdout.splitlines()
    assert "1 file(s) differ" in changed.stdout

    # A listed file gone, and a module planted in the package that RECORD does not list.
    gone = purelib / "station" / "shipped" / "config" / "paytables" / "seed003.yaml"
    os.remove(gone)
    planted = purelib / "drivers" / "planted.py"
    planted.write_text("print('hello')\n")
    more = run(station, "verify-install", cwd=here)
    assert more.returncode == 1, more.stdout + more.stderr
    lines = more.stdout.splitlines()
    assert {f"changed: {target}", f"missing: {gone}", f"added: {planted}"} <= set(lines)
    assert "3 file(s) differ" in more.stdout


def test_an_editable_install_has_nothing_to_verify_and_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    # This test venv holds the station as `pip install -e` (scripts/setup): no RECORD hashes
    # for its sources, so the command refuses rather than passing.
    assert main(["verify-install"]) == 2
    err = capsys.readouterr().err
    assert "editable install or a checkout" in err and "nothing can be verified" in err
