"""The daemon's check of an ``archived`` claim (station.journal.aside.Holdings) against real
journals: the one in use and those moved aside beside it, read-only and without writing
anything beside them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from station.journal.aside import Holdings
from tests.journal import retentionkit as kit


def test_claims_are_held_or_refused_naming_what_differs(tmp_path: Path) -> None:
    aside = kit.make_aside(tmp_path, records=9)
    other = tmp_path / "other"
    other.mkdir()
    theirs = kit.make_aside(other, table="t9")
    shutil.copy(theirs.path, tmp_path / (theirs.path.stem + "-5.sqlite3"))
    with kit.current(tmp_path, shoes=3) as journal:
        holdings = Holdings(journal)
        me = journal.journal_id.hex()
        before = sorted(os.listdir(tmp_path))
        assert holdings.refusal(aside.journal_id, aside.last_seq, aside.head) is None
        assert holdings.refusal(aside.journal_id, 0, aside.journal_id) is None
        assert holdings.refusal(aside.journal_id, 10, aside.head) == (
            f"journal {aside.journal_id} moved aside as {aside.path.name} has no record 10")
        assert holdings.refusal(aside.journal_id, 9, "0" * 64) == (
            f"record 9 of journal {aside.journal_id} has head {aside.head}, not {'0' * 64}")
        assert holdings.refusal(me, journal.last_seq, journal.head_hash.hex()) is None
        h1 = journal.hash_at(1)
        assert h1 is not None and holdings.refusal(me, 1, h1.hex()) is None
        assert holdings.refusal(me, 4, "0" * 64) == (
            f"journal {me} (in use) has records up to seq 3, not 4")
        # Another table's journal under a name of ours is not this station's.
        assert holdings.refusal(theirs.journal_id, theirs.last_seq, theirs.head) == (
            f"journal {theirs.journal_id} is not on this station: neither the journal in use "
            f"({me}) nor one moved aside beside it")
        assert sorted(os.listdir(tmp_path)) == before  # nothing written beside them
        # Deleted since (retention, prune): no longer held.
        aside.path.unlink()
        assert "is not on this station" in str(
            holdings.refusal(aside.journal_id, aside.last_seq, aside.head))
