"""The journal mirror's content, sealed for the archive: readable by the holder of one
X25519 private key (the archive's), by nobody else on the broker (issue 32).

The construction is HPKE (RFC 9180) in base mode, as the ``cryptography`` library implements
it: a fresh ephemeral X25519 key agreement per record with the archive's public key,
HKDF-SHA256, ChaCha20-Poly1305. Nothing of it is ours but the choice of suite and what goes
in ``info``: the record's idempotency key, so a sealed content taken from one record and put
in another does not open. The station signs the message that carries the sealed bytes, as
every message; the chain covers the plaintext, so the archive's copy is the station's.

The plaintext is padded with JSON whitespace to a multiple of ``PAD_BYTES``: a card's code
is short and its length varies with the card's format (``10S`` against ``9S``), and an
exact length would be a way to tell something about a card still face down.

Keys are PEM files: the public key (SubjectPublicKeyInfo) in the station's
``upstream.mirror_key``, the private key (PKCS#8, mode 600) with the archive
(``archive.mirror_key_file``, or its unit's credential ``mirror-key``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.hpke import AEAD, KDF, KEM, Suite

from station.errors import ConfigError, StationError
from station.wire.signing import read_key_file

SUITE: Final = Suite(KEM.X25519, KDF.HKDF_SHA256, AEAD.CHACHA20_POLY1305)
INFO: Final = b"dealer-station journal mirror v1\x00"
PAD_BYTES: Final = 256
KEY_ID_HEX: Final = 16  # the key id: this many hex digits of SHA-256 of the raw public key
CREDENTIAL_NAME: Final = "mirror-key"  # the archive's unit: LoadCredential=mirror-key:FILE


class SealError(StationError):
    """A sealed content that is for another key, or does not open (altered, or not ours)."""


def key_id(public: X25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:KEY_ID_HEX]


def _info(record_key: str) -> bytes:
    return INFO + record_key.encode("utf-8")


@dataclass(frozen=True, slots=True)
class Sealer:
    """Seals for one public key. Thread-safe (the key object is immutable)."""

    public: X25519PublicKey

    @property
    def kid(self) -> str:
        return key_id(self.public)

    def seal(self, content: dict[str, Any], record_key: str) -> str:
        """``content`` as JSON, padded and sealed; base64 of HPKE's ``enc || ciphertext``."""
        plain = orjson.dumps(content, option=orjson.OPT_SORT_KEYS)
        plain += b" " * (-len(plain) % PAD_BYTES)
        return base64.b64encode(SUITE.encrypt(plain, self.public, _info(record_key))
                                ).decode("ascii")


@dataclass(frozen=True, slots=True)
class Opener:
    """Opens what was sealed for its key (the archive's). Thread-safe."""

    private: X25519PrivateKey

    @property
    def kid(self) -> str:
        return key_id(self.private.public_key())

    def open(self, sealed: str, to: str, record_key: str) -> dict[str, Any]:
        """The content; raises SealError saying why not (for another key, not base64, does
        not open with this key and record, not a JSON object)."""
        if to != self.kid:
            raise SealError(f"sealed for key {to[:KEY_ID_HEX]!r}, the archive's key is "
                            f"{self.kid!r}: set the station's upstream.mirror_key to the "
                            "archive's public key")
        try:
            data = base64.b64decode(sealed, validate=True)
        except (binascii.Error, ValueError):
            raise SealError("'sealed' is not base64") from None
        try:
            plain = SUITE.decrypt(data, self.private, _info(record_key))
        except (InvalidTag, ValueError):
            raise SealError("the sealed content does not open with the archive's key for "
                            "this record (altered, or sealed for another record)") from None
        try:
            content = orjson.loads(plain)
        except orjson.JSONDecodeError:
            raise SealError("the sealed content is not JSON") from None
        if not isinstance(content, dict):
            raise SealError("the sealed content is not a JSON object")
        return content


# --- keys -------------------------------------------------------------------------------


def private_pem(key: X25519PrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def public_pem(key: X25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.PEM,
                            serialization.PublicFormat.SubjectPublicKeyInfo)


FIX: Final = "`station keygen DIR --mirror` writes the archive's pair"


def load_mirror_public(path: Path) -> Sealer:
    """The archive's public key (PEM) as the station's config names it; raises ConfigError."""
    data = read_key_file(path, "mirror key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise ConfigError(f"mirror key {path}: not a PEM public key (expected '-----BEGIN "
                          f"PUBLIC KEY-----'); {FIX}") from None
    if not isinstance(key, X25519PublicKey):
        raise ConfigError(f"mirror key {path}: not an X25519 key (the archive's mirror key "
                          f"is X25519, not its Ed25519 signing key); {FIX}")
    return Sealer(key)


def load_mirror_private(path: Path) -> Opener:
    """The archive's private key (PEM, PKCS#8, mode 600); raises ConfigError."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ConfigError(f"mirror key {path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"mirror key {path}: {exc.strerror}") from None
    if st.st_mode & (stat.S_IROTH | stat.S_IWOTH):
        raise ConfigError(f"mirror key {path}: other users can read or write it (mode "
                          f"{stat.S_IMODE(st.st_mode):04o}); run: chmod 600 {path}")
    data = read_key_file(path, "mirror key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise ConfigError(f"mirror key {path}: the key is encrypted; store it unencrypted "
                          "with mode 600 or as a systemd credential") from None
    except ValueError:
        raise ConfigError(f"mirror key {path}: not a PEM private key (expected '-----BEGIN "
                          f"PRIVATE KEY-----'); {FIX}") from None
    if not isinstance(key, X25519PrivateKey):
        raise ConfigError(f"mirror key {path}: not an X25519 key; {FIX}")
    return Opener(key)
