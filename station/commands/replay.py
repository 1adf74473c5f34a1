"""``station replay RECORDING``: feed a recording through the same machine."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from drivers.events import InputEvent
from station.errors import StationError
from station.kinds.displays.lines import ConsoleDisplay
from station.settings.outfiles import Outputs
from station.table.outputs import Published
from station.table.station import Station
from station.upstream.sinks import ResultsWriter
from station.wire.recording import read_recording


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "replay", help="replay a recorded session",
        description="Apply every event of a recording, in order, to a fresh station with the "
        "recorded table rules; the outputs are those of the original session.",
    )
    p.add_argument("recording", type=Path, nargs="?",
                   help="a journal (journal.path of station run) or a recording written by "
                   "run or simulate")
    p.add_argument("--video", type=Path, default=None,
                   help="instead of a recording: a video of a shoe, read by the camera driver "
                   "with the reader settings of -c (docs/hardware.md)")
    p.add_argument("-c", "--config", type=Path, default=None,
                   help="with --video: the station YAML whose table rules and reader "
                   "settings (decoder, roi, agree_frames, code format) read it "
                   "(default: config/station.yaml)")
    p.add_argument("--out", help="write rounds as JSON Lines to FILE, or - for stdout")
    p.add_argument("--display", action="store_true", help="print the dealer display to stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if (args.recording is None) == (args.video is None):
        raise StationError("name a recording (or journal) to replay, or --video FILE, "
                           "not both")
    if args.config is not None and args.video is None:
        raise StationError("-c takes the reader settings for --video; a recording carries "
                           "its own table rules")
    source: Path = args.recording if args.video is None else args.video
    # The recording is the incident's evidence: --out may never name it (station.settings.outfiles).
    outs = Outputs([source])
    outs.claim("--out", args.out)
    events: Iterable[InputEvent]
    if args.video is not None:
        from station.live.config import default_config_path, load_config  # noqa: PLC0415
        from station.live.videoreplay import video_events  # noqa: PLC0415 - OpenCV when asked

        config = load_config(args.config or default_config_path())
        station = Station(config.rules, config.paytable, prompts=args.display)
        events = video_events(config, args.video, station)
    else:
        # A journal (SQLite) or a JSON Lines recording: the same events, the same station.
        from station.journal import is_journal_file, read_journal  # noqa: PLC0415

        recording = (read_journal(source) if is_journal_file(source)
                     else read_recording(source))
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
                if type(o) is Published:
                    if o.record["status"] == "complete":
                        rounds += 1
                    else:
                        voids += 1
                    if sink is not None:
                        sink.write(o.record)
            if display is not None and outputs:
                display.show(outputs)
    print(f"replayed {source}: {count} events, {rounds} rounds complete, {voids} void; "
          f"ended {station.prompt.line()}", file=sys.stderr)
    return 0
