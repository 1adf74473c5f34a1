"""A retention run on a full disk frees the acknowledged journals, and only them: on a small
tmpfs of its own (a mount namespace made with ``unshare``), filled to the last byte. Reading a
journal moved aside must then write nothing beside it (SQLite's ``-shm`` cannot be sized on
a full disk): station.journal.aside opens those ``immutable``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

SIZE = "16m"


def _run_on_small_disk(mount: Path) -> subprocess.CompletedProcess[str]:
    """The child on a tmpfs of its own: in a mount namespace of its own (``unshare``, so no
    mount outlives the test), else mounted here as root (as the durability test's disk)."""
    child = [sys.executable, "-m", "tests.journal.fulldisk_child", str(mount)]
    if shutil.which("unshare") is not None:
        probe = subprocess.run(["unshare", "-rm", "sh", "-c",
                                f'mount -t tmpfs -o size=64k tmpfs "{mount}"'],
                               capture_output=True, text=True, check=False)
        if probe.returncode == 0:
            return subprocess.run(
                ["unshare", "-rm", "sh", "-c",
                 f'mount -t tmpfs -o size={SIZE} tmpfs "$1" && shift && exec "$@"', "sh",
                 str(mount), *child],
                cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"cannot mount a tmpfs for the full-disk test: {done.stderr}")
        pytest.skip(f"cannot mount a tmpfs here (needs root or unshare): {done.stderr}")
    try:
        return subprocess.run(child, cwd=REPO, capture_output=True, text=True, timeout=300,
                              check=False)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_frees_only_the_acknowledged_journals(tmp_path: Path) -> None:
    mount = tmp_path / "disk"
    mount.mkdir()
    run = _run_on_small_disk(mount)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    found = json.loads(run.stdout.splitlines()[-1])
    assert found["filled"] > 0 and found["free_before"] == 0, found
    # station journal prune --dry-run, on the full disk: it reads and says what would go.
    assert found["dry_run"] == 0, found
    verdicts = [line.split(": ")[1] for line in found["listing"].splitlines()]
    assert verdicts == ["delete", "keep", "delete"], found["listing"]
    assert found["deleted"] == 2, (found, run.stderr[-2000:])
    assert found["free_after"] > 0 and found["freed"] > 0
    left = set(found["left"])
    assert found["unacked"] in left and f"{found['unacked']}-head" in left
    assert not {found["acked"], found["acked2"]} & left
    assert not any(name.startswith(found["acked"]) for name in left)
    assert found["unacked_verifies"] == 400
    assert {"journal.sqlite3", "filler"} <= left
