"""Every recording under tests/recordings/ replays to its expected rounds and final display."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from station.table.outputs import Published
from station.wire.recording import read_recording
from tests.conftest import REPO

RECORDINGS = sorted(
    p for p in (REPO / "tests" / "recordings").glob("*.jsonl")
    if not p.name.endswith(".results.jsonl")
)


def test_there_are_recordings_including_paused_ones() -> None:
    finals = [p.with_suffix(".final.txt").read_text() for p in RECORDINGS]
    assert len(RECORDINGS) >= 5
    assert sum(f.startswith("PAUSED:") for f in finals) >= 2


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda p: p.stem)
def test_recording_replays_exactly(recording: Path) -> None:
    opened = read_recording(recording)
    station = opened.station()
    published: list[dict[str, object]] = []
    for event in opened.events:
        published.extend(o.record for o in station.apply(event) if isinstance(o, Published))
    expected_file = recording.with_name(recording.stem + ".results.jsonl")
    expected = [json.loads(x) for x in expected_file.read_text().splitlines() if x.strip()]
    assert published == expected
    assert station.prompt.line() == recording.with_suffix(".final.txt").read_text().strip()
