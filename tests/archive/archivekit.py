"""A table, its mirror and the archive, as real processes on a real Mosquitto: the pieces the
archive tests share."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from station.services.archive.store import SUFFIX
from station.wire import sealing
from station.wire.signing import private_pem, public_pem
from tests.stationkit import table_config, write_key
from tests.upstream.broker import Broker

ARCHIVE = str(Path(sys.executable).parent / "station")
TABLE = "t7"


@dataclass
class Site:
    """One table and one archive, in a temporary folder."""

    root: Path
    station_config: Path
    journal: Path
    station_key: Ed25519PrivateKey
    archive_config: Path
    archive_key: Ed25519PrivateKey
    archive_dir: Path

    def archived(self) -> list[Path]:
        folder = self.archive_dir / TABLE
        return sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []


# The archive's mirror key (X25519): every table of the tests seals its records for it.
MIRROR_KEY = X25519PrivateKey.generate()


def mirror_public(folder: Path) -> Path:
    """The archive's public mirror key, written in ``folder`` (a station's)."""
    path = folder / "mirror-key.pub.pem"
    if not path.exists():
        path.write_bytes(sealing.public_pem(MIRROR_KEY.public_key()))
    return path


def mirrored_upstream(broker: Broker, key: Path, **more: Any) -> dict[str, Any]:
    return {"type": "mqtt", "host": "127.0.0.1", "port": broker.port, "prefix": "baccarat",
            "signing_key_file": str(key), "reconnect_max_s": 1, "mirror": True,
            "mirror_key": str(mirror_public(key.parent)), **more}


def write_archive_config(folder: Path, broker: Broker, keys_dir: Path, **archive: Any) -> \
        tuple[Path, Ed25519PrivateKey]:
    folder.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    key_path = folder / "archive-key.pem"
    key_path.write_bytes(private_pem(key))
    key_path.chmod(0o600)
    mirror_path = folder / "mirror-key.pem"
    mirror_path.write_bytes(sealing.private_pem(MIRROR_KEY))
    mirror_path.chmod(0o600)
    cfg = {"broker": {"host": "127.0.0.1", "port": broker.port, "prefix": "baccarat"},
           "tables": {"keys_dir": str(keys_dir)},
           "archive": {"dir": str(folder / "journals"), "name": "dc1",
                       "signing_key_file": str(key_path),
                       "mirror_key_file": str(mirror_path), **archive}}
    path = folder / "archive.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path, key


def make_site(tmp: Path, broker: Broker, *, seed: int, **simulation: Any) -> Site:
    table = tmp / "table"
    table.mkdir()
    key_path, key = write_key(table)
    keys = tmp / "keys"
    keys.mkdir()
    (keys / f"{TABLE}.pub.pem").write_bytes(public_pem(key.public_key()))
    archive_config, archive_key = write_archive_config(tmp / "archive", broker, keys)
    # The station takes the archive's archived and resend, as a site's does
    # (docs/operations.md): its key listed under the archive's name.
    (table / "dc1.pub.pem").write_bytes(public_pem(archive_key.public_key()))
    config = table_config(table, seed=seed, upstream=mirrored_upstream(
        broker, key_path, command_keys={"dc1": "dc1.pub.pem"}), **simulation)
    return Site(tmp, config, table / "journal.sqlite3", key, archive_config, archive_key,
                tmp / "archive" / "journals")


def start_archive(config: Path) -> subprocess.Popen[bytes]:
    with (config.parent / "archive.log").open("ab") as log:
        return subprocess.Popen([ARCHIVE, "archive", "-c", str(config)], cwd=config.parent,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=log)


def archive_log(config: Path) -> str:
    path = config.parent / "archive.log"
    return path.read_text() if path.exists() else ""


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARCHIVE, "journal", "verify", str(path)], capture_output=True,
                          text=True, timeout=120, check=False)


def replay_rounds(path: Path) -> list[str]:
    """What ``station replay`` prints for a journal: its rounds, as lines."""
    done = subprocess.run([ARCHIVE, "replay", str(path)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def head_of(path: Path) -> tuple[int, str]:
    """A journal's head row (seq, hash hex), read as another process would."""
    import sqlite3  # noqa: PLC0415
    from contextlib import closing  # noqa: PLC0415

    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2)) as db:
            seq, digest = db.execute("SELECT seq, hash FROM head").fetchone()
            return int(seq), bytes(digest).hex()
    except (sqlite3.Error, TypeError):
        return -1, ""


def caught_up(site: Site) -> bool:
    """The archive holds the station's journal to its head (one archived file for it)."""
    station = head_of(site.journal)
    return station[0] > 0 and any(head_of(p) == station for p in site.archived())
