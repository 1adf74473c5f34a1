"""``station keygen``: a usable key pair, private mode 0600, never overwritten."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from station.kinds.outlets.mqtt import MqttSettings
from station.kinds.registry import settings_of
from station.live.config import load_config
from station.wire.signing import load_public_key, load_signer, verify
from tests.conftest import REPO


def keygen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", "keygen", *args],
                          capture_output=True, text=True, check=False)


def test_keygen_writes_a_pair_that_signs_and_verifies(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    done = keygen(str(keys))
    assert done.returncode == 0, done.stderr
    private, public = keys / "signing-key.pem", keys / "signing-key.pub.pem"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(public.stat().st_mode) == 0o644
    assert str(private) in done.stdout and str(public) in done.stdout
    assert "signing_key_file" in done.stdout and "LoadCredential=signing-key" in done.stdout
    payload = load_signer(private).sign({"v": 1, "kind": "status"})
    verify(json.loads(payload), load_public_key(public))


def test_keygen_never_overwrites(tmp_path: Path) -> None:
    assert keygen(str(tmp_path)).returncode == 0
    before = (tmp_path / "signing-key.pem").read_bytes()
    again = keygen(str(tmp_path))
    assert again.returncode == 2
    assert "already exists" in again.stderr and "signing-key.pem" in again.stderr
    assert (tmp_path / "signing-key.pem").read_bytes() == before
    (tmp_path / "pit.pub.pem").write_text("someone else's")
    other = keygen(str(tmp_path), "--name", "pit")
    assert other.returncode == 2 and "pit.pub.pem" in other.stderr
    assert not (tmp_path / "pit.pem").exists(), "nothing is written when either file exists"


def test_keygen_refuses_a_path_as_name(tmp_path: Path) -> None:
    done = keygen(str(tmp_path), "--name", "../x")
    assert done.returncode == 2 and "--name" in done.stderr


def _blocks(stdout: str) -> list[str]:
    """The config blocks keygen suggests: each ``upstream:`` line with the indented lines
    under it, as printed."""
    lines = stdout.splitlines()
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() == "upstream:":
            indent = len(line) - len(line.lstrip())
            block = [line[indent:]]
            for more in lines[i + 1:]:
                if len(more) - len(more.lstrip()) <= indent or not more.strip():
                    break
                block.append(more[indent:])
            blocks.append("\n".join(block) + "\n")
    return blocks


@pytest.mark.parametrize("folder", ["keys", "my keys: 2026"])
def test_the_config_lines_keygen_prints_work_as_printed(tmp_path: Path, folder: str) -> None:
    """Run from one folder, keys written to another given relatively, the suggested lines
    pasted into a config in a third: the config names the very files keygen wrote (a config
    names files relative to its own folder, not to where keygen ran)."""
    cwd, conf = tmp_path / "cwd", tmp_path / "etc" / "station"
    cwd.mkdir()
    conf.mkdir(parents=True)
    done = subprocess.run([sys.executable, "-m", "station.cli", "keygen", f"../{folder}",
                           "--name", "pit"], cwd=cwd, capture_output=True, text=True,
                          check=False, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    private, public = tmp_path / folder / "pit.pem", tmp_path / folder / "pit.pub.pem"
    station_block, commands_block = _blocks(done.stdout)
    (conf / "station.yaml").write_text(station_block)
    settings = load_config(conf / "station.yaml").upstream
    assert settings.signing_key_file is not None
    assert settings.signing_key_file.resolve() == private.resolve()
    load_signer(settings.signing_key_file)  # the station would take it (mode, format)
    (conf / "station.yaml").write_text(commands_block)
    # The keys of the mqtt outlet (the one that takes commands), though the block names none.
    mqtt = settings_of(load_config(conf / "station.yaml"), "upstream", "mqtt")
    assert isinstance(mqtt, MqttSettings)
    assert {n: p.resolve() for n, p in mqtt.command_keys.items()} == {
        "pit": public.resolve()}
    load_public_key(mqtt.command_keys["pit"])


def test_keygen_says_which_key_goes_where(tmp_path: Path) -> None:
    """The game server gets the station's public key (it verifies every message); a pit
    system keeps its private key (it signs commands) and the station lists its public key."""
    done = keygen(str(tmp_path))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    public = str(tmp_path / "signing-key.pub.pem")
    assert f"Give the public key, {public}, to the game server: it verifies every message" \
        in " ".join(out.split())
    assert "keep the private key on that system (it signs each command)" in " ".join(
        out.split())
    assert "pit key" not in out and "give it to the game server" not in out


@pytest.mark.parametrize(("args", "sender"), [
    (["--name", "pit-key"], "pit"),  # docs/pit.md's own command: the pit signs as pit.name
    (["--name", "signing-key"], "pit"),
    (["--name", "pit-key", "--sender", "floor-2"], "floor-2"),
])
def test_the_command_key_is_listed_under_the_signers_name_not_the_files(
        tmp_path: Path, args: list[str], sender: str) -> None:
    """Issue 30: ``--name pit-key`` suggested ``pit-key:`` where the pit signs as ``pit``,
    so a table pasting the line refused every command of the pit."""
    done = keygen(str(tmp_path), *args)
    assert done.returncode == 0, done.stderr
    commands_block = _blocks(done.stdout)[1]
    (tmp_path / "station.yaml").write_text(commands_block)
    mqtt = settings_of(load_config(tmp_path / "station.yaml"), "upstream", "mqtt")
    assert isinstance(mqtt, MqttSettings)
    keys = mqtt.command_keys
    assert list(keys) == [sender]
    assert keys[sender].name == f"{args[1]}.pub.pem"  # the file keygen wrote


def test_keygen_refuses_a_sender_that_is_no_key_name(tmp_path: Path) -> None:
    done = keygen(str(tmp_path), "--sender", "pit boss")
    assert done.returncode == 2
    assert "--sender 'pit boss'" in done.stderr and "letters, digits" in done.stderr
    assert not list(tmp_path.iterdir())  # nothing written
