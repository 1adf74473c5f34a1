"""The daemon numbers upstream messages in the order the journal writes them, so ``seq``
increases along the outbox and every events message's ``prev_seq`` is the one sent before
it, even for a refused command that waited out a journal outage (docs/upstream.md)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from drivers.events import Command, DeviceLost
from station.live.assembly import build_daemon
from station.live.config import parse_config
from station.wire.commands import Refused
from tests.daemon.test_daemon import FullDisk, config_dict
from tests.streamkit import linked


def test_a_refusal_held_through_a_journal_outage_is_numbered_when_it_is_journaled(
        tmp_path: Path) -> None:
    built = build_daemon(parse_config(tmp_path / "s.yaml", config_dict(tmp_path)))
    d = built.daemon
    disk = FullDisk(d.journal)
    d.journal = disk  # type: ignore[assignment]
    try:
        d.submit(Command("new_shoe", "dealer:test", time.time()))
        disk.full = True
        d.submit(DeviceLost("scanner", "port vanished", time.time()))  # the outage begins
        d.upstream_command(Refused("stale", "sent 40.0 s ago", "c-1", "resume"))
        d._on_upstream(d._queue.get_nowait()[1])  # as the loop takes it: held, not journaled
        assert d._outage
        disk.full = False
        d._retry_journal()
        assert not d._outage
        sent = [json.loads(row.payload) for row in disk.pending(10_000)]
    finally:
        built.close()
    assert [m["kind"] for m in sent].count("command_refused") == 1
    seqs = [m["seq"] for m in sent]
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    linked(sent)
