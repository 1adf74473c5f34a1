"""Ed25519 signatures over the canonical JSON of a message, in its ``sig`` field (base64).

Key loading is where operators make mistakes, so every error names the file and the fix. A
private key file that other users can read is refused, not warned about: anyone who can read
it can publish results the game server will pay out on.
"""

from __future__ import annotations

import base64
import binascii
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

from station.errors import ConfigError, StationError
from station.wire.canonical import SIG, CanonicalError, canonical, encode, normalize

# cryptography is imported where a key is read or a signature checked: a station
# whose upstream signs nothing, or that has not yet read its key, does not load it at start
# (issue 35, start to READY).
CREDENTIAL_NAME = "signing-key"  # systemd: LoadCredential=signing-key:/etc/station/signing-key.pem
SIGNATURE_BYTES = 64


class SignatureError(StationError):
    """A message's signature is missing, malformed or does not verify."""


@dataclass(frozen=True, slots=True)
class Signer:
    """Signs messages with one private key. Thread-safe (the key object is immutable)."""

    key: Ed25519PrivateKey

    def sign(self, message: Mapping[str, Any]) -> bytes:
        """The final payload: canonical JSON of ``message`` with its ``sig`` added.

        Raises CanonicalError when a value has no canonical form.
        """
        body = normalize({k: v for k, v in message.items() if k != SIG})
        sig = self.key.sign(encode(body))
        body[SIG] = base64.b64encode(sig).decode("ascii")
        return encode(body)

    def public_key(self) -> Ed25519PublicKey:
        return self.key.public_key()


def verify(message: Mapping[str, Any], key: Ed25519PublicKey) -> None:
    """Check ``message["sig"]`` against ``key``; raises SignatureError saying why not."""
    from cryptography.exceptions import InvalidSignature  # noqa: PLC0415 - imported when needed
    sig = message.get(SIG)
    if not isinstance(sig, str):
        raise SignatureError("no 'sig' field" if sig is None else "'sig' is not a string")
    try:
        raw = base64.b64decode(sig, validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError("'sig' is not base64") from None
    if base64.b64encode(raw).decode("ascii") != sig:
        # Unused trailing bits make other spellings decode the same; one spelling only.
        raise SignatureError("'sig' is not in canonical base64")
    if len(raw) != SIGNATURE_BYTES:
        raise SignatureError(f"'sig' is {len(raw)} bytes, an Ed25519 signature is 64")
    try:
        key.verify(raw, canonical(message))
    except CanonicalError as exc:
        raise SignatureError(f"no canonical form to verify: {exc}") from None
    except InvalidSignature:
        raise SignatureError("signature does not match (wrong key or altered message)") from None


# --- keys -------------------------------------------------------------------------------


def default_key_path(environ: Mapping[str, str] | None = None) -> Path | None:
    """``$CREDENTIALS_DIRECTORY/signing-key`` when systemd passed credentials, else None."""
    env = os.environ if environ is None else environ
    creds = env.get("CREDENTIALS_DIRECTORY")
    return Path(creds) / CREDENTIAL_NAME if creds else None


def load_signer(path: Path | None, environ: Mapping[str, str] | None = None) -> Signer:
    """The signer for ``upstream.signing_key_file``, or for the systemd credential when the
    key is unset. Raises ConfigError naming both ways when there is neither."""
    if path is None:
        path = default_key_path(environ)
        if path is None or not path.exists():
            where = f" ({path} does not exist)" if path is not None else ""
            raise ConfigError(
                "upstream: no signing key: set upstream.signing_key_file to a PEM (PKCS#8) "
                "Ed25519 private key, or pass the systemd credential 'signing-key' "
                f"(LoadCredential=signing-key:FILE){where}; `station keygen DIR` makes one"
            )
    return Signer(load_private_key(path))


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """Read a PEM (PKCS#8) Ed25519 private key. Raises ConfigError: missing, unreadable,
    readable or writable by other users, not PEM, encrypted, or not Ed25519."""
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (  # noqa: PLC0415
        Ed25519PrivateKey,
    )

    try:
        st = path.stat()
    except FileNotFoundError:
        raise ConfigError(f"signing key {path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"signing key {path}: {exc.strerror}") from None
    if st.st_mode & (stat.S_IROTH | stat.S_IWOTH):
        raise ConfigError(
            f"signing key {path}: other users can read or write it (mode "
            f"{stat.S_IMODE(st.st_mode):04o}); run: chmod 600 {path}"
        )
    data = read_key_file(path, "signing key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise ConfigError(
            f"signing key {path}: the key is encrypted; store it unencrypted with mode 600 "
            "or as a systemd credential"
        ) from None
    except ValueError:
        raise ConfigError(
            f"signing key {path}: not a PEM private key (expected '-----BEGIN PRIVATE KEY-----'"
            "; `station keygen DIR` writes one)"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(
            f"signing key {path}: a {type(key).__name__.removeprefix('_')} key, not Ed25519"
        )
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    """Read a PEM (SubjectPublicKeyInfo) Ed25519 public key; raises ConfigError."""
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (  # noqa: PLC0415
        Ed25519PublicKey,
    )

    data = read_key_file(path, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise ConfigError(
            f"public key {path}: not a PEM public key (expected '-----BEGIN PUBLIC KEY-----')"
        ) from None
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError(f"public key {path}: not an Ed25519 key")
    return key


def read_key_file(path: Path, what: str) -> bytes:
    """A key file's bytes, or a ConfigError naming ``what`` and why it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{what} {path}: is a directory, not a key file") from None
    except OSError as exc:
        raise ConfigError(f"{what} {path}: {exc.strerror}") from None


def private_pem(key: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415

    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def public_pem(key: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415

    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def public_raw_b64(key: Ed25519PublicKey) -> str:
    """The 32 raw public-key bytes in base64: a short fingerprint to compare by eye."""
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415

    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode("ascii")
