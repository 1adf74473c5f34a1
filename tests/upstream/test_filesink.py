"""The file publisher: order, fsync before marking, a torn line cut, a full disk survived."""

from __future__ import annotations

import json
import logging
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from station.upstream.filesink import FileSink, cut_torn_tail
from station.wire.signing import Signer, verify
from tests.upstream.broker import wait_until
from tests.upstream.helpers import produce
from tests.upstream.outboxes import MemoryOutbox


def test_writes_every_row_in_order_then_marks_it(tmp_path: Path, signer: Signer) -> None:
    out = tmp_path / "var" / "upstream.jsonl"
    outbox = MemoryOutbox()
    produce(outbox, signer, 700)
    sink = FileSink(outbox, str(out), batch=100)
    sink.start()
    try:
        produce(outbox, signer, 50)
        sink.notify()
        wait_until(lambda: outbox.backlog() == 0, 10, "the outbox to drain")
    finally:
        sink.stop()
    lines = out.read_bytes().splitlines()
    assert [json.loads(x)["seq"] for x in lines] == list(range(1, 751))
    assert lines == [row.payload for row in outbox.rows]
    verify(json.loads(lines[0]), signer.public_key())
    assert [i for call in outbox.mark_calls for i in call] == list(range(1, 751))


def test_a_torn_last_line_is_cut_at_start(tmp_path: Path, signer: Signer,
                                          caplog: pytest.LogCaptureFixture) -> None:
    out = tmp_path / "upstream.jsonl"
    out.write_bytes(b'{"complete":1}\n{"torn":')
    assert cut_torn_tail(tmp_path / "upstream.jsonl") == 8
    assert out.read_bytes() == b'{"complete":1}\n'
    out.write_bytes(b'{"complete":1}\n{"torn":')
    outbox = MemoryOutbox()
    produce(outbox, signer, 3)
    sink = FileSink(outbox, str(out))
    sink.start()
    try:
        wait_until(lambda: outbox.backlog() == 0, 10, "the outbox to drain")
    finally:
        sink.stop()
    lines = out.read_bytes().splitlines()
    assert lines[0] == b'{"complete":1}' and len(lines) == 4
    assert all(json.loads(x) for x in lines)
    assert any("torn" in r.getMessage() for r in caplog.records)
    only_torn = tmp_path / "only.jsonl"
    only_torn.write_bytes(b"no newline at all")
    assert cut_torn_tail(only_torn) == 17 and only_torn.read_bytes() == b""


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs: a real full disk. Needs root (CI and the dev machines run as root);
    elsewhere the test is skipped, saying why."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_keeps_the_backlog_and_leaves_no_torn_line(
        small_fs: Path, signer: Signer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "station.upstream")
    filler = small_fs / "filler"
    out = small_fs / "upstream.jsonl"
    outbox = MemoryOutbox()
    sink = FileSink(outbox, str(out), batch=50, retry_max_s=0.2)
    sink.start()
    try:
        filler.write_bytes(b"x" * (64 * 1024 - 4096 * 2))  # leave room for a few lines
        produce(outbox, signer, 180)  # ~60 KB: more than fits now, all of it once freed
        sink.notify()
        wait_until(lambda: any("unavailable" in r.getMessage() for r in caplog.records), 10,
                   "the full-disk warning")
        time.sleep(0.5)  # several retries
        written = out.read_bytes()
        assert written.endswith(b"\n") or written == b"", "a torn line was left behind"
        assert len(written.splitlines()) == len(outbox.delivered_ids())
        assert outbox.backlog() > 0
        warnings = [r for r in caplog.records if "unavailable" in r.getMessage()]
        assert len(warnings) == 1, "one line per outage, not per retry"
        filler.unlink()  # space comes back
        wait_until(lambda: outbox.backlog() == 0, 10, "the backlog to drain")
    finally:
        sink.stop()
    lines = out.read_bytes().splitlines()
    assert [json.loads(x)["seq"] for x in lines] == list(range(1, 181))
    assert any(" back after " in r.getMessage() for r in caplog.records)
