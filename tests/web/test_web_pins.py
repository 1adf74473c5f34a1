"""Supervisors' PINs: scrypt in a 0600 file, lockout after wrong ones, `station pin`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.errors import ConfigError
from station.web import pins
from station.web.pins import PinChecker, Verdict
from tests.sampling import examples


def test_a_pin_is_stored_hashed_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "p.pins"
    pins.save(path, [pins.hash_pin("alice", "4321"), pins.hash_pin("bob", "8765")])
    assert path.stat().st_mode & 0o777 == 0o600
    text = path.read_text()
    assert "4321" not in text and "8765" not in text
    checker = PinChecker(path)
    assert checker.check("8765") == (Verdict.OK, "bob")
    assert checker.check("4321") == (Verdict.OK, "alice")
    assert checker.check("4322")[0] == Verdict.WRONG


def test_lockout_after_repeated_failures_then_it_lifts(tmp_path: Path) -> None:
    path = tmp_path / "p.pins"
    pins.save(path, [pins.hash_pin("alice", "4321")])
    checker = PinChecker(path, max_failures=3, lockout_s=0.3)
    assert checker.check("0000") == (Verdict.WRONG, "wrong PIN (2 tries left)")
    assert checker.check("0000") == (Verdict.WRONG, "wrong PIN (1 tries left)")
    assert checker.check("0000")[0] == Verdict.LOCKED
    assert checker.check("4321")[0] == Verdict.LOCKED
    import time  # noqa: PLC0415

    time.sleep(0.35)
    assert checker.check("4321") == (Verdict.OK, "alice")


def test_a_success_resets_the_count(tmp_path: Path) -> None:
    path = tmp_path / "p.pins"
    pins.save(path, [pins.hash_pin("alice", "4321")])
    checker = PinChecker(path, max_failures=2)
    assert checker.check("0000")[0] == Verdict.WRONG
    assert checker.check("4321")[0] == Verdict.OK
    assert checker.check("0000")[0] == Verdict.WRONG


def test_no_file_means_no_supervisor(tmp_path: Path) -> None:
    assert PinChecker(None).check("4321")[0] == Verdict.NONE
    assert PinChecker(tmp_path / "none.pins").check("4321")[0] == Verdict.NONE


def test_the_file_is_read_again_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "p.pins"
    pins.save(path, [pins.hash_pin("alice", "4321")])
    checker = PinChecker(path)
    pins.save(path, [pins.hash_pin("alice", "5555")])
    assert checker.check("5555") == (Verdict.OK, "alice")


@pytest.mark.parametrize("text", [
    "alice", "alice scrypt$1$8$1$00$00", "alice md5$16384$8$1$aabbccddeeff0011$" + "00" * 32,
    "alice scrypt$16384$8$1$zz$00", "-x scrypt$16384$8$1$aabbccddeeff0011$" + "00" * 32,
    "alice scrypt$16384$8$1$aabbccddeeff0011$" + "00" * 32 + "\nalice scrypt$16384$8$1$"
    "aabbccddeeff0011$" + "00" * 32,
])
def test_a_bad_line_is_named(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError, match=r"line \d"):
        pins.parse(tmp_path / "p.pins", text)


@settings(max_examples=examples(300))
@given(st.text(max_size=200))
def test_any_text_parses_or_is_refused_by_line(text: str) -> None:
    try:
        entries = pins.parse(Path("p.pins"), text)
    except ConfigError as exc:
        assert "p.pins: line " in str(exc)
    else:
        assert all(pins.NAME_RE.fullmatch(e.name) for e in entries)


def run_pin(config: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", "pin", *args, "-c", str(config)],
                          check=False, input=stdin, capture_output=True, text=True, timeout=60)


def test_station_pin_set_change_and_remove(tmp_path: Path) -> None:
    config = tmp_path / "station.yaml"
    config.write_text("display: {type: web, credentials_file: sup.pins}\n")
    done = run_pin(config, "set", "alice", stdin="4321\n")
    assert done.returncode == 0, done.stderr
    assert "set alice's PIN" in done.stderr
    done = run_pin(config, "set", "bob", stdin="4321\n")
    assert done.returncode == 2 and "alice already has this PIN" in done.stderr
    done = run_pin(config, "set", "bob", stdin="12\n")
    assert done.returncode == 2 and "4 to 64 characters" in done.stderr
    done = run_pin(config, "set", "alice", stdin="9876\n")
    assert done.returncode == 0 and "changed alice's PIN" in done.stderr
    assert PinChecker(tmp_path / "sup.pins").check("9876") == (Verdict.OK, "alice")
    done = run_pin(config, "remove", "alice")
    assert done.returncode == 0
    assert pins.load(tmp_path / "sup.pins") == []
    done = run_pin(config, "remove", "alice")
    assert done.returncode == 2 and "no supervisor alice" in done.stderr


def test_station_pin_needs_the_credentials_key(tmp_path: Path) -> None:
    config = tmp_path / "station.yaml"
    config.write_text("display: {type: web}\n")
    done = run_pin(config, "set", "alice", stdin="4321\n")
    assert done.returncode == 2
    assert "display.credentials_file is not set" in done.stderr
    assert not list(tmp_path.glob("*.pins"))


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_root_writes_the_pins_for_the_folders_owner(tmp_path: Path) -> None:
    """``pin set`` is run as root, the service as its unit's user: the PINs go to the owner of
    the folder (a unit's state folder is its user's), then stay with the file's owner."""
    folder = tmp_path / "state"
    folder.mkdir()
    os.chown(folder, 4321, 4322)
    path = folder / "pit.pins"
    pins.save(path, [pins.hash_pin("ann", "2468")])
    st = path.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (4321, 4322, 0o600)
    os.chown(path, 5555, 5556)  # an operator chose another owner: kept
    pins.save(path, [pins.hash_pin("bob", "1357")])
    assert (path.stat().st_uid, path.stat().st_gid) == (5555, 5556)
