"""``station keygen``: a usable key pair, private mode 0600, never overwritten."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

from station.upstream.signing import load_public_key, load_signer, verify


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
