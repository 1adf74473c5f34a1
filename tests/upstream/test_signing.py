"""Canonical JSON, signatures and key loading."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from station.errors import ConfigError
from station.wire.canonical import CanonicalError, canonical, normalize
from station.wire.signing import (
    SignatureError,
    Signer,
    load_public_key,
    load_signer,
    private_pem,
    public_pem,
    verify,
)

MESSAGE: dict[str, Any] = {"v": 1, "kind": "card", "table": "table-1", "seq": 7,
                           "key": "s:1:player:1", "ts": "2026-01-01T00:00:03.123Z",
                           "card": "9H", "note": "é ü 中 \u2028", "pays": 0.95, "n": 2.0}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text()
    | st.floats(allow_nan=False, allow_infinity=False).filter(
        lambda x: x == 0 or 1e-4 <= abs(x) < 2**53),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text().filter(lambda k: k != "sig"), json_values, max_size=6))
def test_canonical_is_what_python_json_writes_sorted_and_compact(obj: dict[str, Any]) -> None:
    expected = json.dumps(normalize(obj), sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False).encode("utf-8")
    assert canonical(obj) == expected
    # A verifier parses the payload and writes it again: the same bytes come out.
    assert canonical(json.loads(expected)) == expected


def test_canonical_leaves_out_sig_and_writes_integral_floats_as_integers() -> None:
    assert canonical({"b": 1.0, "a": [2.5, 3.0], "sig": "x"}) == b'{"a":[2.5,3],"b":1}'


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 1e-7, 1.5e20, 2**60, {1: 2},
                                 b"bytes", {"x"}])
def test_values_without_a_canonical_form_are_refused(bad: object) -> None:
    with pytest.raises(CanonicalError):
        canonical({"x": bad})


def test_sign_then_verify_round_trip(signer: Signer) -> None:
    payload = signer.sign(MESSAGE)
    got = json.loads(payload)
    assert set(got) == set(MESSAGE) | {"sig"}
    assert len(base64.b64decode(got["sig"])) == 64
    verify(got, signer.public_key())
    assert payload == json.dumps(got, sort_keys=True, separators=(",", ":"),
                                 ensure_ascii=False).encode()


def test_every_field_is_covered(signer: Signer) -> None:
    signed = json.loads(signer.sign(MESSAGE))
    for field in MESSAGE:
        tampered = dict(signed)
        tampered[field] = "tampered" if tampered[field] != "tampered" else "other"
        with pytest.raises(SignatureError, match="does not match"):
            verify(tampered, signer.public_key())
    extra = dict(signed, added=True)
    with pytest.raises(SignatureError):
        verify(extra, signer.public_key())
    with pytest.raises(SignatureError, match="does not match"):
        verify(signed, Ed25519PrivateKey.generate().public_key())


@pytest.mark.parametrize(("sig", "why"), [(None, "no 'sig'"), (5, "not a string"),
                                          ("***", "not base64"), ("AAAA", "3 bytes")])
def test_malformed_signatures_say_why(signer: Signer, sig: object, why: str) -> None:
    signed = json.loads(signer.sign(MESSAGE))
    if sig is None:
        del signed["sig"]
    else:
        signed["sig"] = sig
    with pytest.raises(SignatureError, match=why):
        verify(signed, signer.public_key())


def _key_file(tmp_path: Path, data: bytes, mode: int = 0o600) -> Path:
    path = tmp_path / "key.pem"
    path.write_bytes(data)
    path.chmod(mode)
    return path


def test_load_signer_from_file_and_from_systemd_credential(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    path = _key_file(tmp_path, private_pem(key))
    signer = load_signer(path)
    verify(json.loads(signer.sign(MESSAGE)), key.public_key())
    creds = tmp_path / "creds"
    creds.mkdir()
    (creds / "signing-key").write_bytes(private_pem(key))
    (creds / "signing-key").chmod(0o400)
    signer = load_signer(None, {"CREDENTIALS_DIRECTORY": str(creds)})
    verify(json.loads(signer.sign(MESSAGE)), key.public_key())


def test_no_key_names_both_ways(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"signing_key_file.*LoadCredential=signing-key"):
        load_signer(None, {})
    with pytest.raises(ConfigError, match="does not exist"):
        load_signer(None, {"CREDENTIALS_DIRECTORY": str(tmp_path)})


def test_key_file_errors_name_the_file_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_signer(tmp_path / "missing.pem")
    with pytest.raises(ConfigError, match="not a PEM private key"):
        load_signer(_key_file(tmp_path, b"hello"))
    ec_key = ec.generate_private_key(ec.SECP256R1())
    pem = ec_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                               serialization.NoEncryption())
    with pytest.raises(ConfigError, match="not Ed25519"):
        load_signer(_key_file(tmp_path, pem))
    enc = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"pw"))
    with pytest.raises(ConfigError, match="encrypted"):
        load_signer(_key_file(tmp_path, enc))
    good = private_pem(Ed25519PrivateKey.generate())
    with pytest.raises(ConfigError, match="chmod 600"):
        load_signer(_key_file(tmp_path, good, 0o644))
    load_signer(_key_file(tmp_path, good, 0o640))  # a group may be how a deployment shares it
    with pytest.raises(ConfigError, match="is a directory"):
        load_public_key(tmp_path)
    with pytest.raises(ConfigError, match="not a PEM public key"):
        load_public_key(_key_file(tmp_path, good))


def test_public_key_round_trip(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    path = tmp_path / "k.pub.pem"
    path.write_bytes(public_pem(key.public_key()))
    loaded = load_public_key(path)
    verify(json.loads(Signer(key).sign(MESSAGE)), loaded)
