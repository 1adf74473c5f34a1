"""The tables' public keys: one PEM file per table, as ``station keygen`` writes them.

``station keygen DIR --name <table>`` writes ``<table>.pub.pem``; a folder of keys may also
name them ``<table>.pub``. Either way the table id is the file name before ``.pub``.
"""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from station.errors import ConfigError
from station.wire.signing import load_public_key

SUFFIXES = (".pub.pem", ".pub")


def table_of(path: Path) -> str | None:
    """The table a key file is for, or None when its name is not a public key's."""
    for suffix in SUFFIXES:
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            return path.name[: -len(suffix)]
    return None


def load_keys(folder: Path) -> dict[str, Ed25519PublicKey]:
    """Every table's key in ``folder``; raises ConfigError naming a bad file or a table
    with two keys."""
    if not folder.is_dir():
        raise ConfigError(f"keys folder {folder}: not a directory")
    keys: dict[str, Ed25519PublicKey] = {}
    where: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        table = table_of(path)
        if table is None:
            continue
        if table in keys:
            raise ConfigError(f"keys folder {folder}: two keys for table {table!r} "
                              f"({where[table].name}, {path.name}); keep one")
        keys[table], where[table] = load_public_key(path), path
    return keys
