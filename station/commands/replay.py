"""``station replay RECORDING``: feed a recording through the same machine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from station.display import ConsoleDisplay
from station.outfiles import Outputs
from station.outputs import Published
from station.recording import read_recording
from station.sinks import ResultsWriter


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "replay", help="replay a recorded session",
        description="Apply every event of a recording, in order, to a fresh station with the "
        "recorded table rules; the outputs are those of the original session.",
    )
    p.add_argument("recording", type=Path,
                   help="a journal (journal.path of station run) or a recording written by "
                   "run or simulate")
    p.add_argument("--out", help="write rounds as JSON Lines to FILE, or - for stdout")
    p.add_argument("--display", action="store_true", help="print the dealer display to stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # The recording is the incident's evidence: --out may never name it (station.outfiles).
    outs = Outputs([args.recording])
    outs.claim("--out", args.out)
    # A journal (SQLite) or a JSON Lines recording: the same events, the same station.
    from station.journal import is_journal_file, read_journal  # noqa: PLC0415 - replay only

    recording = (read_journal(args.recording) if is_journal_file(args.recording)
                 else read_recording(args.recording))
    station = recording.station(prompts=args.display)
    events = recording.events
    rounds = voids = count = 0
    with outs:
        out_stream = outs["--out"]
        sink = ResultsWriter(out_stream) if out_stream is not None else None
        display = ConsoleDisplay(sys.stderr) if args.display else None
        if display is not None:
            display.show([station.prompt])
        for event in events:
            outputs = station.apply(event)
            count += 1
            for o in outputs:
                if isinstance(o, Published):
                    if o.record["status"] == "complete":
                        rounds += 1
                    else:
                        voids += 1
                    if sink is not None:
                        sink.write(o.record)
            if display is not None and outputs:
                display.show(outputs)
    print(f"replayed {args.recording}: {count} events, {rounds} rounds complete, {voids} void; "
          f"ended {station.prompt.line()}", file=sys.stderr)
    return 0
