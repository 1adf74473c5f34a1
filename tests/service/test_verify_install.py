"""``station verify-install`` on the installed wheel: every file against RECORD's hash
(docs/operations.md, "Checking the install")."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from drivers.events import InstallModified
from station.cli import main
from station.journal import Journal, read_journal
from station.live.assembly import build_daemon
from station.live.config import load_config
from station.wire.schema import validate
from tests.daemon.test_daemon import config_dict
from tests.service.test_clock import assert_replay_rebuilds_every_message
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
    target = purelib / "station" / "game" / "betguard.py"
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


def test_the_config_and_paytable_are_checked_against_the_journal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "station.yaml"
    data = config_dict(tmp_path, shoes=1)
    config.write_text(yaml.safe_dump(data))
    assert main(["verify-install", "-c", str(config)]) == 2  # no journal yet: said
    assert "no journal there" in capsys.readouterr().err
    built = build_daemon(load_config(config))
    try:
        built.daemon.run(until=lambda: built.daemon.events_applied >= 5)
    finally:
        built.close()
    # As the journal's header has them. This checkout's install is not checkable: exit 2,
    # but the config's lines are there.
    assert main(["verify-install", "-c", str(config)]) == 2
    out = capsys.readouterr()
    assert f"matches: config {config} (the journal's header)" in out.out
    assert "matches: paytable" in out.out and "install not checked" in out.err
    # One byte of the file, a comment: named, exit 1.
    config.write_text(config.read_text() + "# edited\n")
    assert main(["verify-install", "-c", str(config)]) == 1
    assert f"changed: config {config}: sha256 " in capsys.readouterr().out
    # Started with it, the journal records the change: it matches the journal's last again.
    built = build_daemon(load_config(config))
    built.close()
    assert main(["verify-install", "-c", str(config)]) == 2
    assert f"matches: config {config} (the journal's record " in capsys.readouterr().out


def test_an_old_journal_without_hashes_is_said_and_passes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "station.yaml"
    config.write_text(yaml.safe_dump(config_dict(tmp_path, shoes=1)))
    loaded = load_config(config)
    Journal.create(tmp_path / "journal.sqlite3", loaded.rules, loaded.paytable, "old").close()
    assert main(["verify-install", "-c", str(config)]) == 2  # the install, not the config
    out = capsys.readouterr()
    assert "records no config hashes" in out.out and "changed:" not in out.out


def test_the_daemon_checks_the_install_at_start_and_alerts_on_a_changed_file(
        tmp_path: Path) -> None:
    env = tmp_path / "venv"
    purelib = install(build_wheel(tmp_path), env)
    station = str(env / "bin" / "station")
    config = tmp_path / "station.yaml"
    config.write_text(yaml.safe_dump(config_dict(tmp_path, shoes=1)
                                     | {"metrics": {"port": None}}))
    clean = run(station, "run", "-c", str(config), cwd=tmp_path)
    assert clean.returncode == 0, clean.stderr[-3000:]
    sent = [json.loads(x) for x in (tmp_path / "upstream.jsonl").read_text().splitlines()]
    assert not [m for m in sent if m["kind"] == "alert"]
    assert run(station, "verify-install", "-c", str(config), cwd=tmp_path).returncode == 0

    # One byte of a file the station does not read at run time.
    target = purelib / "station" / "shipped" / "config" / "paytables" / "seed003.yaml"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    again = run(station, "run", "-c", str(config), cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    sent = [json.loads(x) for x in (tmp_path / "upstream.jsonl").read_text().splitlines()]
    (alert,) = [m for m in sent if m["kind"] == "alert"]
    assert alert["alert"] == "install_modified" and alert["by"] == "install_check"
    assert alert["files"] == [f"changed: {target}"]
    validate({**alert, "sig": "A" * 86 + "=="})
    # Journaled as an input event: a replay raises it again, without the install.
    events = [e for e in read_journal(tmp_path / "journal.sqlite3").events
              if isinstance(e, InstallModified)]
    assert len(events) == 1 and events[0].files == (f"changed: {target}",)
    assert_replay_rebuilds_every_message(tmp_path / "journal.sqlite3")
    checked = run(station, "verify-install", "-c", str(config), cwd=tmp_path)
    assert checked.returncode == 1 and f"changed: {target}" in checked.stdout
