"""``upstream.mirror_key`` (issue 32): a mirror without the archive's key is refused at start
and by check-config with exit 2 on every table, squeeze and VIP tables first among them; a
key that is not an X25519 public key is named; check-config says the key it seals for and
warns when the broker is reached in clear."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from station.wire import sealing
from tests.daemon.test_daemon import config_dict
from tests.service.test_install_check import station, write
from tests.upstream.broker import Broker

MIRROR = X25519PrivateKey.generate()


def mirrored(tmp: Path, broker_port: int, mode: str, **more: object) -> Path:
    (tmp / "keys").mkdir(exist_ok=True)
    if not (tmp / "keys" / "signing-key.pem").exists():
        assert station("keygen", str(tmp / "keys"), cwd=tmp).returncode == 0
    cfg: dict[str, Any] = config_dict(tmp)
    cfg["table"] = {**cfg["table"], "mode": mode}
    cfg["upstream"] = {"type": "mqtt", "host": "127.0.0.1", "port": broker_port,
                       "signing_key_file": "keys/signing-key.pem", "mirror": True, **more}
    return write(tmp, cfg)


@pytest.mark.parametrize("mode", ["squeeze", "vip", "standard"])
def test_a_mirror_without_the_archives_key_is_refused_with_exit_2(
        tmp_path: Path, mode: str) -> None:
    path = mirrored(tmp_path, 1883, mode)
    for command in (("check-config", "-c", str(path)), ("run", "-c", str(path))):
        done = station(*command, cwd=tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "upstream.mirror_key" in done.stderr and "station keygen DIR --mirror" in \
            done.stderr, done.stderr
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "var").exists() or not any((tmp_path / "var").iterdir())


def test_a_signing_key_given_as_the_mirror_key_is_named(tmp_path: Path) -> None:
    path = mirrored(tmp_path, 1883, "squeeze", mirror_key="keys/signing-key.pub.pem")
    done = station("run", "-c", str(path), cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not an X25519 key" in done.stderr and "Traceback" not in done.stderr


def test_check_config_names_the_key_and_warns_of_a_broker_in_clear(
        tmp_path: Path, broker: Broker) -> None:
    (tmp_path / "mirror.pub.pem").write_bytes(sealing.public_pem(MIRROR.public_key()))
    path = mirrored(tmp_path, broker.port, "squeeze", mirror_key="mirror.pub.pem")
    done = station("check-config", "-c", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    kid = sealing.key_id(MIRROR.public_key())
    assert f"ok   upstream.mirror_key: {tmp_path / 'mirror.pub.pem'}" in done.stdout
    assert kid in done.stdout
    assert f"WARN upstream.tls: 127.0.0.1:{broker.port}: in clear (no TLS)" in done.stdout
