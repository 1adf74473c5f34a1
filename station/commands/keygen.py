"""``station keygen DIR``: a new Ed25519 key pair for signing upstream messages (or for a pit
system that signs commands to the station)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from station.errors import StationError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "keygen",
        help="write a new Ed25519 key pair for signing upstream messages",
        description=(
            "Write NAME.pem (the private key, PEM PKCS#8, mode 0600) and NAME.pub.pem (the "
            "public key, for the game server) into DIR. Existing files are never overwritten."
        ),
    )
    parser.add_argument("dir", type=Path, metavar="DIR", help="directory for the two files")
    parser.add_argument("--name", default="signing-key",
                        help="file name stem (default: signing-key)")
    parser.set_defaults(func=run)


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


def run(args: argparse.Namespace) -> int:
    # Imported here, so only this command pays for loading cryptography at start.
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (  # noqa: PLC0415
        Ed25519PrivateKey,
    )

    from station.upstream.signing import private_pem, public_pem, public_raw_b64  # noqa: PLC0415

    directory: Path = args.dir
    name: str = args.name
    if not name or "/" in name or name.startswith("."):
        raise StationError(f"--name {name!r}: a plain file name stem, like signing-key")
    private = directory / f"{name}.pem"
    public = directory / f"{name}.pub.pem"
    for path in (private, public):
        if path.exists():
            raise StationError(f"{path} already exists: not overwriting a key; choose another "
                               "DIR or --name, or remove it if it was never used")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        key = Ed25519PrivateKey.generate()
        _write_new(private, private_pem(key), 0o600)
        _write_new(public, public_pem(key.public_key()), 0o644)
    except OSError as exc:
        raise StationError(f"keygen {directory}: {exc.strerror or exc}") from None
    print(f"private key: {private} (mode 0600; keep it on the station only)")
    print(f"public key:  {public} (give it to the game server; it verifies every message)")
    print(f"fingerprint: {public_raw_b64(key.public_key())} (the raw public key, base64)")
    print("use it with one of:")
    print(f"  upstream.signing_key_file: {private}")
    print(f"  systemd: LoadCredential=signing-key:{private.resolve()}")
    print("for a pit system that sends commands: keep the private key there and list the "
          "public key under upstream.command_keys")
    return 0
