"""Every output of a recording replayed with no clock: the display's lines (prompts, notices,
announcements, published rounds) and the upstream messages the daemon's feed would journal.

The recorded sessions of the table modes (tests/recordings/README.md) keep both beside the
recording, from the live simulation that made it (its ``--display`` lines) and from this
replay (the messages, unsigned, without ``station_version``, which changes with releases);
tests/journal/test_recordings_modes.py replays each and compares. To write them again, on purpose:

    python -m tests.modes_replay tests/recordings/NAME.jsonl
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

from station.journal.verify import verify_journal
from station.kinds.displays.lines import format_output
from station.table.outputs import Announced
from station.upstream.stream import virtual_chain
from station.wire.feed import Feed
from station.wire.messages import STATION_VERSION
from station.wire.observe import Snapshot
from station.wire.recording import read_recording


def journal_heads(path: Path) -> tuple[bytes, dict[int, bytes]]:
    """A journal's id and each record's chain hash (record 0's: the id)."""
    journal_id = verify_journal(path, live=False).journal_id
    with contextlib.closing(sqlite3.connect(path)) as conn:
        rows = conn.execute("SELECT seq, hash FROM events").fetchall()
    return journal_id, {0: journal_id} | {int(seq): bytes(h) for seq, h in rows}


def replay(recording: Path, journal: Path | None = None) -> tuple[list[str], list[str], list[str]]:
    """(display lines as ``station simulate --display`` prints them; announcements; upstream
    messages) of ``recording`` replayed from its first event. ``journal``: the journal the
    recording was exported from, whose heads the statuses then name, as the daemon's did;
    without it, the chain of a journal of the recording's header (``station simulate``'s)."""
    opened = read_recording(recording)
    station = opened.station()
    applied = [0]
    if journal is not None:
        journal_id, hashes = journal_heads(journal)
        feed = Feed(station.rules.table, station.rules.decks, None,
                    head=lambda: (journal_id, applied[0], hashes[applied[0]]))
    else:
        feed = Feed(station.rules.table, station.rules.decks, None,
                    chain=virtual_chain(station))
    display = [format_output(station.prompt)]  # the display shows the first prompt at once
    announced: list[str] = []
    messages: list[str] = []
    for event in opened.events:
        before = Snapshot.of(station)
        outputs = station.apply(event)
        for _, payload in feed.messages(before, Snapshot.of(station), event, outputs):
            message = orjson.loads(payload)
            message.pop(STATION_VERSION, None)
            messages.append(orjson.dumps(message, option=orjson.OPT_SORT_KEYS).decode())
        applied[0] += 1
        for o in outputs:
            if isinstance(o, Announced):
                announced.append(format_output(o))
            else:
                display.append(format_output(o))
    return display, announced, messages


def expected_paths(recording: Path) -> tuple[Path, Path]:
    stem = recording.with_suffix("")
    return Path(f"{stem}.display.txt"), Path(f"{stem}.upstream.txt")


def main(argv: list[str]) -> int:
    for name in argv:
        recording = Path(name)
        _, _, messages = replay(recording)
        upstream = expected_paths(recording)[1]
        upstream.write_text("".join(m + "\n" for m in messages))
        print(f"{upstream}: {len(messages)} messages")
    return 0

def assert_journal_replays_live(journal: Path, messages: list[dict[str, Any]],
                                outside: str) -> None:
    """``station journal export`` of ``journal``, replayed with no clock, gives the events
    messages the live daemon sent (``messages``, first copy of each key), but the verifier's
    refusals with reason ``outside`` (journaled beside their event, never the station's) and
    the envelope, which numbers and signs them."""
    exported = journal.with_name("exported.jsonl")
    done = subprocess.run([sys.executable, "-m", "station.cli", "journal", "export",
                           str(journal), "--out", str(exported)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    envelope = ("seq", "prev_seq", "key", "sig", "station_version")
    live = [{k: v for k, v in m.items() if k not in envelope} for m in messages
            if m.get("reason") != outside and "seq" in m]
    again = [{k: v for k, v in orjson.loads(m).items() if k not in envelope}
             for m in replay(exported)[2]]
    again = [m for m in again if m["kind"] != "status"]  # those go to the status topic
    assert again == live


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
