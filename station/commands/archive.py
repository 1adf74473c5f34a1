"""``station archive -c ARCHIVE.yaml``: keep a verified copy of every table's journal off the
dealer PCs, from the stations' journal mirror (station.services.archive; docs/journal.md)."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from pathlib import Path
from typing import Any

from station.errors import ConfigError

log = logging.getLogger("station.services.archive")
SUMMARY = "keep a verified copy of every table's journal, from the stations' mirror"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "archive", help=SUMMARY,
        description="Subscribe to every table's journal topic (<prefix>/+/journal), verify "
        "each record's signature and hash chain as it arrives, write one journal per station "
        "journal under archive.dir/<table>/, and acknowledge what is on disk to the station "
        "with a signed 'archived' command. A gap, a broken chain or a bad signature is "
        "refused (nothing unverified is written), logged and published on "
        "<prefix>/<table>/archive. Stops cleanly on SIGINT/SIGTERM.",
    )
    p.add_argument("-c", "--config", type=Path, required=True,
                   help="the archive's YAML (see config/archive.yaml)")
    p.add_argument("--check", action="store_true",
                   help="check the config, the tables' keys, the archive's key and its "
                   "folder, then exit (0: all good) without connecting")
    p.add_argument("--credentials", type=Path, default=None, metavar="DIR",
                   help="with --check: the folder of the unit's credentials (signing-key.pem, "
                   "mqtt-credentials), as its LoadCredential= would give them")
    p.set_defaults(func=run)


def check(path: Path, credentials: Path | None) -> int:
    """What the archive reads before it connects, read and checked; only archive.dir may be
    made (as the service would)."""
    from station.client.keys import load_keys  # noqa: PLC0415
    from station.kinds.probes import clear_broker  # noqa: PLC0415
    from station.live.service.credentials import credentials_from  # noqa: PLC0415
    from station.services.archive.config import load_archive_config  # noqa: PLC0415
    from station.services.archive.service import (  # noqa: PLC0415
        archive_dirs_ok,
        archive_opener,
        archive_signer,
    )

    config = load_archive_config(path)
    with credentials_from(credentials, "archive"):
        archive_signer(config)
        opener = archive_opener(config)
    try:
        keys = load_keys(config.tables.keys_dir)
    except ConfigError as exc:
        raise ConfigError(f"{config.path}: tables.keys_dir: {exc}") from exc
    archive_dirs_ok(config.archive.dir)
    b = config.broker
    print(f"station archive: {path}: good; {len(keys)} table key(s) in "
          f"{config.tables.keys_dir}; journals -> {config.archive.dir}; broker "
          f"{b.host}:{b.effective_port}")
    print("mirror key: " + (f"records sealed for X25519 key {opener.kid} are opened"
                            if opener is not None else
                            "none (archive.mirror_key_file, or the unit's credential "
                            "mirror-key): every sealed record would be refused"))
    clear = clear_broker("broker.tls", b.where, b.tls)
    if clear.warn:
        print(clear.line())
    return 0


def run(args: argparse.Namespace) -> int:
    from station.live.service import logs  # noqa: PLC0415
    from station.live.service.notify import Notifier  # noqa: PLC0415
    from station.services.archive.config import load_archive_config  # noqa: PLC0415
    from station.services.archive.service import ArchiveService, archive_dirs_ok  # noqa: PLC0415

    if args.check:
        return check(args.config, args.credentials)
    if args.credentials is not None:
        raise ConfigError("--credentials goes with --check; the unit itself gets its "
                          "credentials from systemd")
    logs.configure(logging.INFO)
    config = load_archive_config(args.config)
    archive_dirs_ok(config.archive.dir)
    service = ArchiveService(config)
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    b = config.broker
    logs.say(f"station archive: {config.archive.name}: {len(service.receiver.keys)} table "
             f"key(s) from {config.tables.keys_dir}; journals -> {config.archive.dir}; broker "
             f"{b.host}:{b.effective_port} ({b.prefix}/+/journal); {logs.how_to_stop()}")
    notifier = Notifier.from_env()
    where = f"{b.host}:{b.effective_port}"

    def ready(connected: bool) -> None:
        # Type=notify (the unit): `systemctl start` returns here, after the config, the keys,
        # the folder and the broker's session are set up, or fails before with exit 2.
        if not connected:
            log.warning("archive: the broker %s has not answered yet; ready, and still "
                        "trying", where)
        if notifier is not None:
            notifier.ready(f"archiving {b.prefix}/+/journal from {where}"
                           if connected else f"waiting for the broker {where}")

    try:
        service.run(stop, ready)
    finally:
        if notifier is not None:
            notifier.stopping("stopping")
            notifier.close()
    logs.say(f"station archive: stopped; {service.written} record(s) written, "
             f"{service.refused} refused")
    return 0
