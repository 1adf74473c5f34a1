"""Abuse: a journal as long as the station lets one grow (issue 18).

Every start verifies the whole journal, replays it into a fresh station and brings its
recording up to date; a journal is moved aside only at the first start between shoes past
``ROTATE_RECORDS`` (50,000 records, about three days of a busy table). The full run starts on
a journal of exactly that length, the sample on a tenth of it. What is asserted: the memory
a start allocates (traced by ``tracemalloc``) does not grow with the journal, because
verification streams, recovery keeps only the last shoe's rounds, and the recording is
compared a line at a time.
"""

from __future__ import annotations

import shutil
import tracemalloc
from pathlib import Path

from station.cli import main
from station.journal import Journal
from station.journal.files import companions
from station.journal.keptrecording import KeptRecording
from station.journal.recovery import recover
from station.live.assembly import ROTATE_RECORDS
from station.wire.recording import header_line, read_recording
from tests.abuse.scale import pick

RECORDS = pick(ROTATE_RECORDS // 10, ROTATE_RECORDS)
# The first start is measured on a tenth of the journal, the second on all of it: what the
# second allocates beyond the first is what grows with the journal. Measured: peaks of 0.21
# and 0.32 MB at 5,000 and 50,000 records; a recovery that kept every shoe's rounds (a mutant)
# peaks at 5.9 MB at 50,000.
GROWTH_BYTES = 1 << 20
CEILING_BYTES = 16 << 20


def simulated_events(tmp_path: Path, records: int) -> Path:
    """A recording of simulated shoes with at least ``records`` events."""
    shoes = records // 500 + 1  # a shoe is about 560 events (cards, burn, betting, commands)
    out = tmp_path / "sim.jsonl"
    assert main(["simulate", "--shoes", str(shoes), "--seed", "3", "--no-bets",
                 "--supervisor", "resume", "--record", str(out), "--out",
                 str(tmp_path / "rounds.jsonl")]) == 0
    return out


def start_peak(path: Path, folder: Path) -> tuple[int, int]:
    """A start's work on the journal: open (verify), recover and sync the recording. Returns
    (records, the peak of memory allocated meanwhile)."""
    tracemalloc.start()
    try:
        with Journal.open(path) as journal:
            h = journal.header
            kept = KeptRecording(folder, "t", header_line(h.rules, h.paytable, h.session).encode())
            try:
                rec = recover(journal, kept.sync)
                kept.done()
            finally:
                kept.close()
            assert len(rec.rounds) <= 100  # one shoe's rounds, not every shoe's
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return rec.events, peak


def test_a_journal_at_the_rotation_length_starts_in_memory_that_does_not_grow(
        tmp_path: Path) -> None:
    recording = read_recording(simulated_events(tmp_path, RECORDS))
    path = tmp_path / "j.sqlite3"
    tenth = tmp_path / "tenth"
    tenth.mkdir()
    with Journal.create(path, recording.rules, recording.paytable, recording.session) as j:
        for i, event in enumerate(recording.events):
            if i == RECORDS // 10:
                for p in (path, *companions(path)):
                    if p.exists():
                        shutil.copyfile(p, tenth / p.name)
            if i == RECORDS:
                break
            j.append(event, event.ts, float(i))
    small, small_peak = start_peak(tenth / path.name, tenth)
    large, large_peak = start_peak(path, tmp_path)
    assert (small, large) == (RECORDS // 10, RECORDS)
    assert large_peak <= small_peak + GROWTH_BYTES, (small_peak, large_peak)
    assert large_peak <= CEILING_BYTES, large_peak
