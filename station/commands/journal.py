"""``station journal verify|export PATH``: check a journal, or write it out as a recording (or,
with ``--vtt``/``--srt``, as video timecodes: ``station.commands.timecodes``);
``station journal prune -c CONFIG [--dry-run]``: retention (``station.commands.prune``).

Exit codes: 0 intact (export: written); 1 the journal fails verification (the message names
the first bad record or page; nothing is written); 2 not a journal, unreadable, or bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from station.commands.journalout import EXIT_CORRUPT, write_output

if TYPE_CHECKING:
    from station.journal.verify import Report



def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "journal", help="verify a journal, or export it as a recording",
        description="Check or read the station's SQLite journal. Never changes it.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    v = actions.add_parser(
        "verify", help="check the hash chain, the outbox rows, the head and SQLite's integrity",
        description="Exit 0 if the journal is intact, 1 naming the first bad record if not, "
        "2 if the file is not a journal or cannot be read.",
    )
    v.add_argument("journal", type=Path, metavar="PATH", help="the journal file")
    v.set_defaults(func=run_verify)
    e = actions.add_parser(
        "export", help="write the journal as a recording, or as video timecodes",
        description="Verify the journal, then write it as a recording (header line, then one "
        "event per line) that `station replay` reads, or with --vtt/--srt as a subtitle track "
        "of its published messages for the table's video. Nothing is written if verification "
        "fails. An existing FILE is replaced only with --force; the journal and its own files "
        "never are.",
    )
    e.add_argument("journal", type=Path, metavar="PATH", help="the journal file")
    e.add_argument("--out", default=None, metavar="FILE",
                   help="where to write the recording; - (the default) for stdout")
    e.add_argument("--vtt", type=Path, metavar="FILE",
                   help="write video timecodes instead: a WebVTT track of the published "
                   "messages, each cue at its journal record's wall time")
    e.add_argument("--srt", type=Path, metavar="FILE",
                   help="the same track in SubRip (.srt); may go with --vtt")
    e.add_argument("--shoe", metavar="ID",
                   help="with --vtt/--srt: only this shoe (its id, as in the messages)")
    e.add_argument("--video-start", metavar="TIME",
                   help="with --vtt/--srt: the UTC time the video starts, ISO 8601 "
                   "(2026-01-01T14:00:00Z), as 00:00:00.000; default: midnight UTC of the "
                   "first cue's day, so cue times are the UTC time of day")
    e.add_argument("--force", action="store_true", help="replace FILE if it exists")
    e.set_defaults(func=run_export)
    r = actions.add_parser(
        "prune", help="list (and delete) the journals moved aside that retention lets go",
        description="List each journal moved aside beside the config's journal.path: delete "
        "(the archive acknowledged its last record and it is outside journal.retention) or "
        "keep, and why. Without --dry-run, delete those listed as delete, with their -wal, "
        "-shm and -head files and their kept recording. The journal in use is never touched.",
    )
    r.add_argument("-c", "--config", type=Path, required=True, metavar="CONFIG",
                   help="the station's YAML (its journal.path, journal.retention, "
                   "recording.dir and table.id)")
    r.add_argument("--dry-run", action="store_true", help="only say what would go and why")
    r.set_defaults(func=run_prune)


def run_prune(args: argparse.Namespace) -> int:
    from station.commands.prune import prune  # noqa: PLC0415

    return prune(args.config, dry_run=args.dry_run)


def run_verify(args: argparse.Namespace) -> int:
    # The journal's modules load only for this command (start-up of every other command).
    from station.journal import JournalCorrupt, verify_journal  # noqa: PLC0415

    try:
        report = verify_journal(args.journal)
    except JournalCorrupt as exc:
        print(f"station journal verify: FAILED: {exc}", file=sys.stderr)
        return EXIT_CORRUPT
    _notes(report)
    outbox = f"{report.outbox_rows} outbox rows, {report.undelivered} not delivered"
    print(f"{report.path}: intact: {report.records} records, last seq {report.last_seq}, "
          f"head {report.head_hash.hex()}; {outbox}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from station.journal import JournalCorrupt, JournalError, export_journal  # noqa: PLC0415

    journal: Path = args.journal
    if not journal.name:
        raise JournalError(f"{str(journal)!r}: names a folder, not a journal file; give the "
                           "journal's file name")
    if args.vtt is not None or args.srt is not None:
        from station.commands.timecodes import run_timecodes  # noqa: PLC0415

        return run_timecodes(args)
    for option in ("shoe", "video_start"):
        if getattr(args, option) is not None:
            raise JournalError(f"--{option.replace('_', '-')} goes with --vtt or --srt; add "
                               "one of them")
    args.out = "-" if args.out is None else args.out
    try:
        if args.out == "-":
            report = export_journal(journal, sys.stdout)
            sys.stdout.flush()
        else:
            report = _export_to_file(journal, Path(args.out), args.force)
    except JournalCorrupt as exc:
        print(f"station journal export: FAILED, nothing written: {exc}", file=sys.stderr)
        return EXIT_CORRUPT
    _notes(report)
    print(f"exported {report.records} events from {journal} to {args.out}", file=sys.stderr)
    return 0


def _export_to_file(journal: Path, out: Path, force: bool) -> Report:
    from station.journal import export_journal  # noqa: PLC0415

    return write_output(journal, out, force, "the recording",
                        write=lambda f: export_journal(journal, f), option="--out")


def _notes(report: Report) -> None:
    for note in report.notes:
        print(f"note: {report.path}: {note}", file=sys.stderr)
