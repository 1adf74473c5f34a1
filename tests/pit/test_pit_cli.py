"""``station pit`` on the command line: PINs set and removed as ``station pin`` does them,
refusals with exit 2 and one line, and ``pit report`` while the statistics are missing."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from station.web import pins
from tests.pit.pitkit import PitFolder


def station(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, check=False)


def test_pins_are_set_hashed_and_removed(tmp_path: Path) -> None:
    folder = PitFolder(tmp_path / "pit")
    folder.pins.unlink()
    config = folder.config(1883, tmp_path)
    done = station("pit", "pin", "set", "carol", "-c", str(config), stdin="2468\n")
    assert done.returncode == 0, done.stderr
    assert "station pit pin: set carol's PIN" in done.stderr
    entries = pins.load(folder.pins)
    assert [e.name for e in entries] == ["carol"] and entries[0].matches("2468")
    assert "2468" not in folder.pins.read_text()
    assert folder.pins.stat().st_mode & 0o777 == 0o600
    done = station("pit", "pin", "set", "dave", "-c", str(config), stdin="2468\n")
    assert done.returncode == 2 and "carol already has this PIN" in done.stderr
    done = station("pit", "pin", "remove", "carol", "-c", str(config))
    assert done.returncode == 0 and pins.load(folder.pins) == []
    done = station("pit", "pin", "remove", "carol", "-c", str(config))
    assert done.returncode == 2 and "no pit boss carol" in done.stderr


def test_refusals_exit_2_with_one_line(tmp_path: Path) -> None:
    folder = PitFolder(tmp_path / "pit")
    keys = tmp_path / "keys"
    keys.mkdir()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", folder.port))
        taken.listen()
        done = station("pit", "-c", str(folder.config(1, keys)))
    assert done.returncode == 2, done.stderr
    assert f"cannot listen on 127.0.0.1:{folder.port}" in done.stderr
    assert "Traceback" not in done.stderr
    done = station("pit")
    assert done.returncode == 2 and "-c PIT.yaml" in done.stderr
    done = station("pit", "-c", str(tmp_path / "none.yaml"))
    assert done.returncode == 2 and "none.yaml" in done.stderr


def test_a_pin_is_set_before_the_tables_keys_exist_and_says_what_the_pit_needs(
        tmp_path: Path) -> None:
    """`station pit pin set` reads no table's key: it works before the fleet (or keygen) has
    made tables.keys_dir, and says that `station pit` will need it and how it is made."""
    folder = PitFolder(tmp_path / "pit")
    folder.pins.unlink()
    keys = tmp_path / "fleet" / "keys"  # not there yet
    config = folder.config(1883, keys)
    done = station("pit", "pin", "set", "carol", "-c", str(config), stdin="2468\n")
    assert done.returncode == 0, done.stderr
    assert [e.name for e in pins.load(folder.pins)] == ["carol"]
    assert f"tables.keys_dir {keys} does not exist yet" in done.stderr
    assert "station fleet` writes DIR/keys" in done.stderr
    assert "Traceback" not in done.stderr
    # The service itself still refuses to start without it, naming the key and the fix.
    done = station("pit", "--check", "-c", str(config))
    assert done.returncode == 2 and "tables.keys_dir" in done.stderr
    assert "station keygen DIR --name TABLE" in done.stderr
    keys.mkdir(parents=True)
    done = station("pit", "pin", "remove", "carol", "-c", str(config))
    assert done.returncode == 0 and "does not exist" not in done.stderr


def test_the_pits_check_warns_of_a_broker_in_clear(tmp_path: Path) -> None:
    folder = PitFolder(tmp_path / "pit")
    keys = tmp_path / "keys"
    keys.mkdir()
    done = station("pit", "--check", "-c", str(folder.config(1883, keys)))
    assert done.returncode == 0, done.stderr
    assert "WARN broker.tls: 127.0.0.1:1883: in clear (no TLS)" in done.stdout, done.stdout
