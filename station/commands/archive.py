"""``station archive -c ARCHIVE.yaml``: keep a verified copy of every table's journal off the
dealer PCs, from the stations' journal mirror (station.services.archive; docs/journal.md)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any

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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.live.service import logs  # noqa: PLC0415
    from station.services.archive.config import load_archive_config  # noqa: PLC0415
    from station.services.archive.service import ArchiveService, archive_dirs_ok  # noqa: PLC0415

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
    print(f"station archive: {config.archive.name}: {len(service.receiver.keys)} table key(s) "
          f"from {config.tables.keys_dir}; journals -> {config.archive.dir}; broker "
          f"{b.host}:{b.effective_port} ({b.prefix}/+/journal); Ctrl-C stops",
          file=sys.stderr, flush=True)
    service.run(stop)
    print(f"station archive: stopped; {service.written} record(s) written, "
          f"{service.refused} refused", file=sys.stderr)
    return 0
