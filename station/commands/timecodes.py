"""``station journal export PATH --vtt FILE [--srt FILE] [--shoe ID] [--video-start TIME]``:
the journal's published messages as video timecodes (docs/journal.md, Video timecodes)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import IO

from station.commands.journalout import EXIT_CORRUPT, check_output, write_output
from station.journal import JournalCorrupt, JournalError, verify_journal
from station.journal.export import records
from station.journal.timecodes import Track, build, published, srt, vtt

SHOES_NAMED = 5  # an unknown --shoe names at most this many known ones


def run_timecodes(args: argparse.Namespace) -> int:
    journal: Path = args.journal
    if args.out is not None:
        raise JournalError("--out writes the recording; --vtt and --srt write timecodes: "
                           "give one or the other")
    outs = [p for p in (args.vtt, args.srt) if p is not None]
    for option, path in (("--vtt", args.vtt), ("--srt", args.srt)):
        if path is not None and str(path) == "-":
            raise JournalError(f"{option} -: a track goes to a file, not stdout; name a file")
    if len(outs) == 2 and outs[0].resolve() == outs[1].resolve():
        raise JournalError(f"{args.vtt}: named by both --vtt and --srt; give each its own file")
    base = None if args.video_start is None else _video_start(args.video_start)
    if args.shoe is not None and not args.shoe.strip():
        raise JournalError("--shoe is empty; give a shoe id, as in the messages' 'shoe'")
    try:
        report = verify_journal(journal)
        track = build((published(r.seq, r.wall_ts, r.messages) for r in records(report)),
                      shoe=args.shoe, base_s=base)
    except JournalCorrupt as exc:
        print(f"station journal export: FAILED, nothing written: {exc}", file=sys.stderr)
        return EXIT_CORRUPT
    if args.shoe is not None and args.shoe not in track.shoes:
        raise JournalError(f"--shoe {args.shoe!r}: no such shoe in {journal}; "
                           f"{_known(track.shoes)}")
    title = f"{report.header.session} {journal.name}"
    # Every refusal comes before the first file is written: never one file of the two.
    srt_lines = None if args.srt is None else _srt(track)
    for option, path in (("--vtt", args.vtt), ("--srt", args.srt)):
        if path is not None:
            check_output(journal, path, args.force, option)
    if args.vtt is not None:
        write_output(journal, args.vtt, args.force, "the WebVTT track",
                     write=lambda f: _lines(f, vtt(track, title)), option="--vtt")
    if args.srt is not None:
        write_output(journal, args.srt, args.force, "the SubRip track",
                     write=lambda f: _lines(f, srt_lines or []), option="--srt")
    for note in (*report.notes, *track.notes):
        print(f"note: {journal}: {note}", file=sys.stderr)
    written = " and ".join(str(p) for p in outs)
    print(f"wrote {len(track.cues)} cues from {journal} to {written}", file=sys.stderr)
    return 0


def _srt(track: Track) -> list[str]:
    try:
        return list(srt(track))
    except ValueError as exc:
        raise JournalError(f"--srt: {exc}; use --shoe, or --video-start near the "
                           "video's start") from None


def _lines(f: IO[str], lines: Iterable[str]) -> None:
    for line in lines:
        f.write(line)


def _video_start(text: str) -> float:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z")
                                      else text)
    except ValueError:
        raise JournalError(f"--video-start {text!r}: not a time; give ISO 8601 with its "
                           "zone, e.g. 2026-01-01T14:00:00Z") from None
    if when.tzinfo is None:
        raise JournalError(f"--video-start {text!r}: has no time zone; add Z for UTC (or "
                           "+HH:MM)")
    return when.timestamp()


def _known(shoes: list[str]) -> str:
    if not shoes:
        return "the journal has no shoe"
    named = ", ".join(shoes[:SHOES_NAMED])
    more = f" and {len(shoes) - SHOES_NAMED} more" if len(shoes) > SHOES_NAMED else ""
    return f"its shoes are {named}{more}"
