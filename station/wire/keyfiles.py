"""A new Ed25519 key pair written as two files: ``station keygen`` and ``station fleet`` make
their keys with it (the pit's and the tables' too)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey


def _write_new(path: Path, data: bytes, mode: int) -> None:
    # O_EXCL: never replace a key someone already handed out; the mode is set at creation,
    # so the private key is never readable by others, not even for a moment.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(path, mode)  # whatever the umask took away or let through


def write_pair(private: Path, public: Path) -> Ed25519PrivateKey:
    """A new key, written as ``private`` (PKCS#8, 0600) and ``public`` (0644), neither of
    which may exist yet; raises OSError. `station fleet` makes its tables' keys with it."""
    # Imported here, so only the commands that make keys pay for loading cryptography.
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (  # noqa: PLC0415
        Ed25519PrivateKey,
    )

    from station.wire.signing import private_pem, public_pem  # noqa: PLC0415

    key = Ed25519PrivateKey.generate()
    _write_new(private, private_pem(key), 0o600)
    _write_new(public, public_pem(key.public_key()), 0o644)
    return key


def write_mirror_pair(private: Path, public: Path) -> X25519PrivateKey:
    """A new X25519 pair for the journal's mirror (station.wire.sealing), written as
    ``write_pair`` writes a signing pair; raises OSError."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import (  # noqa: PLC0415
        X25519PrivateKey,
    )

    from station.wire.sealing import private_pem, public_pem  # noqa: PLC0415

    key = X25519PrivateKey.generate()
    _write_new(private, private_pem(key), 0o600)
    _write_new(public, public_pem(key.public_key()), 0o644)
    return key
