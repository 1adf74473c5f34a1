"""The full-disk retention run, inside a small tmpfs of its own (run by
test_retention_full_disk.py under ``unshare``, which mounts it): three journals moved aside,
two acknowledged, the disk then filled to the last byte, then the daemon's retention run.
Prints what it found as one JSON line."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

from station.cli import main as station_cli
from station.journal import verify_journal
from station.journal.prune import Retention
from station.settings.retention import RetentionLimits as Limits
from tests.journal import retentionkit as kit


def fill(folder: Path) -> int:
    """Write until the file system refuses: bytes written."""
    written = 0
    with (folder / "filler").open("wb", buffering=0) as f:
        for size in (1 << 16, 4096, 512, 1):
            try:
                while True:
                    written += f.write(b"\0" * size)
            except OSError:
                continue
    return written


def main(folder: Path) -> None:
    acked = kit.make_aside(folder, shoes=2, records=400, ended=time.time() - 9 * kit.DAY)
    unacked = kit.make_aside(folder, shoes=2, records=400, ended=time.time() - 8 * kit.DAY)
    acked2 = kit.make_aside(folder, shoes=2, records=400, ended=time.time() - 7 * kit.DAY)
    with kit.current(folder, shoes=1) as journal:
        kit.ack(journal, acked, n=1)
        kit.ack(journal, unacked, seq=100, n=2)
        kit.ack(journal, acked2, n=3)
    config = kit.config(folder, {"days": 1, "shoes": 1})
    filled = fill(folder)
    free_before = os.statvfs(folder).f_bavail
    # What an operator runs when the station cannot even start: it reads on a full disk too.
    listing = io.StringIO()
    with contextlib.redirect_stdout(listing):
        dry = station_cli(["journal", "prune", "-c", str(config), "--dry-run"])
    done = Retention(folder / "journal.sqlite3", kit.TABLE, Limits(1, 1), None).run_once()
    deleted, freed = done.deleted, done.freed
    free_after = os.statvfs(folder).f_bavail
    print(json.dumps({
        "filled": filled, "free_before": free_before, "free_after": free_after,
        "deleted": deleted, "freed": freed, "dry_run": dry, "listing": listing.getvalue(),
        "left": sorted(p.name for p in folder.iterdir()),
        "acked": acked.path.name, "unacked": unacked.path.name, "acked2": acked2.path.name,
        "unacked_verifies": verify_journal(unacked.path, live=False, frozen=True).last_seq,
    }))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
