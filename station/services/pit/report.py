"""``station pit report``: a period's shift and dealer statistics as CSV (issue 23).

``station pit report -c PIT.yaml --from ISO --to ISO [--by table|dealer] [--out FILE]``
opens the pit journal (PIT.yaml's ``pit.journal``) read-only, folds its ``seen`` rows with
``station.services.pit.stats`` and writes one CSV (RFC 4180: comma separated, CRLF line ends, fields
quoted when they need it, UTF-8, a header row; the columns are in docs/pit.md, Statistics). The
file is written beside its target and moved over it only when complete; it may not be the
config, the journal or the journal's own files. ``-`` (the default) is stdout. Bad input
(no config, no journal, not a pit journal, a date that is not ISO 8601, ``--from`` not
before ``--to``) is exit 2 with a message saying what to fix; nothing is written then.

``load_stats`` is the same reading for the pit's ``GET /api/stats``
(station.services.pit.statsroute).
"""

from __future__ import annotations

import argparse
import csv
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from station.errors import ConfigError, InputFileError, StationError
from station.services.pit import stats

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2
HELP: Final = "a period's shift and dealer statistics from the pit journal, as CSV"
# Rows received this long before the period are read too (the dealer at its start, a pause
# open across it), and this long after it (a table's backlog delivered late).
MARGIN: Final = timedelta(days=1)
_QUERY: Final = (
    "SELECT table_id, kind, seq, at, body FROM seen WHERE kind IN ({kinds}) AND at >= ? "
    "AND at < ? ORDER BY id"
).format(kinds=", ".join("?" for _ in stats.READ_KINDS))


def register_report(sub: Any) -> argparse.ArgumentParser:
    """Add ``report`` to the ``station pit`` subcommands (``sub``, from add_subparsers)."""
    p: argparse.ArgumentParser = sub.add_parser(
        "report", help=HELP,
        description="Rounds, rounds per hour, pauses and voids by reason and time paused, "
        "per table or per dealer, over [--from, --to), from the pit journal's records; "
        "written as CSV (docs/pit.md, Statistics, has every column).")
    p.add_argument("-c", "--config", type=Path, required=True,
                   help="the pit's YAML (its pit.journal is read)")
    p.add_argument("--from", dest="start", required=True, metavar="ISO",
                   help="the period's start, ISO 8601 (2026-01-01T08:00Z); UTC when it names "
                   "no time zone")
    p.add_argument("--to", dest="end", required=True, metavar="ISO",
                   help="the period's end (not included), as --from")
    p.add_argument("--by", choices=("table", "dealer"), default="table",
                   help="a row per table (default) or per dealer")
    p.add_argument("--out", default="-", metavar="FILE",
                   help="the CSV file (default -: stdout)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except StationError as exc:
        _say(f"station pit report: error: {exc}")
        return EXIT_USAGE


def _run(args: argparse.Namespace) -> int:
    from station.settings.outfiles import Outputs  # noqa: PLC0415

    start, end = when(args.start, "--from"), when(args.end, "--to")
    if not start < end:
        raise InputFileError(f"--from {args.start} is not before --to {args.end}; the period "
                             "is [--from, --to)")
    journal = journal_path(Path(args.config))
    # "-" or None (station pit's parser leaves --out unset) is stdout.
    out = "-" if args.out is None else str(args.out)
    outs = Outputs(inputs=[args.config, journal, *_companions(journal)])
    outs.claim("--out", out)
    result = load_stats(journal, start, end, now=datetime.now(UTC))
    with outs:
        f = outs["--out"]
        assert f is not None
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(stats.csv_header(args.by))
        w.writerows(stats.csv_rows(result, args.by))
    groups = len(result["tables" if args.by == "table" else "dealers"])
    where = "stdout" if out == "-" else out
    _say(f"{groups} {args.by}(s), {result['from']} to {result['to']}: written to {where}")
    if result["skipped"]:
        _say(f"warning: {result['skipped']} journal row(s) could not be read and were left out")
    return EXIT_OK


def _say(line: str) -> None:
    # stderr: stdout may be the CSV itself (--out -).
    sys.stderr.write(line + "\n")


def when(text: str, option: str) -> datetime:
    """An ISO 8601 date or time; without a time zone, UTC."""
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        raise InputFileError(f"{option} {text!r}: not an ISO 8601 time; write it as "
                             "2026-01-01T08:00Z (or a date, 2026-01-01)") from None
    t = t.replace(tzinfo=UTC) if t.tzinfo is None else t
    try:
        (t - MARGIN).timestamp(), (t + MARGIN).timestamp()
    except (OverflowError, ValueError, OSError):
        raise InputFileError(f"{option} {text!r}: out of range; give a time of this "
                             "century") from None
    return t


def journal_path(config: Path) -> Path:
    """PIT.yaml's ``pit.journal``, relative to the working directory as the pit itself takes
    it (station.services.pit.config; as the station's ``journal.path``), so the report reads the
    journal the pit writes when run from the pit's folder; an absolute path (the unit's
    config names one) reads it from anywhere. Only that key is read here."""
    from station.settings.yamlload import load_yaml  # noqa: PLC0415

    data = load_yaml(config, "pit config")
    pit = data.get("pit") if isinstance(data, dict) else None
    journal = pit.get("journal") if isinstance(pit, dict) else None
    if not isinstance(journal, str) or not journal:
        raise ConfigError(f"{config}: no pit.journal; name the pit journal's file there")
    return Path(journal)


def _companions(journal: Path) -> tuple[Path, ...]:
    return tuple(journal.with_name(journal.name + s) for s in ("-wal", "-shm", "-journal"))


def load_stats(journal: Path, start: datetime, end: datetime,
               now: datetime | None = None) -> dict[str, Any]:
    """The statistics of ``[start, end)`` from the pit journal at ``journal``, opened
    read-only. Raises ``InputFileError`` naming the file and what is wrong."""
    if not journal.is_file():
        raise InputFileError(f"{journal}: no pit journal there; check pit.journal in the "
                             "config (the pit service creates it when it starts)")
    try:
        db = sqlite3.connect(f"file:{quote(str(journal.resolve()))}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise InputFileError(f"{journal}: cannot open the pit journal ({exc})") from None
    try:
        try:
            cols = {row[1] for row in db.execute("PRAGMA table_info(seen)")}
        except sqlite3.DatabaseError as exc:
            raise InputFileError(f"{journal}: not a pit journal ({exc})") from None
        missing = {"table_id", "kind", "seq", "at", "body"} - cols
        if missing:
            raise InputFileError(f"{journal}: not a pit journal (no seen table with "
                                 f"{', '.join(sorted(missing))}); check pit.journal")
        return stats.compute(_rows(db, journal, start, end), start, end, now=now)
    finally:
        db.close()


def _rows(db: sqlite3.Connection, journal: Path, start: datetime,
          end: datetime) -> Iterator[tuple[Any, ...]]:
    lo, hi = stats.iso((start - MARGIN).timestamp()), stats.iso((end + MARGIN).timestamp())
    try:
        cursor = db.execute(_QUERY, (*stats.READ_KINDS, lo, hi))
        while batch := cursor.fetchmany(4096):
            yield from batch
    except sqlite3.DatabaseError as exc:
        raise InputFileError(f"{journal}: the pit journal cannot be read ({exc}); check the "
                             "file, or restore it from a copy") from None


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m station.services.pit.report ...``: the subcommand alone, until ``station pit``
    dispatches to it (station/commands/pit.py)."""
    parser = argparse.ArgumentParser(prog="station pit")
    sub = parser.add_subparsers(dest="command", required=True)
    register_report(sub)
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except BrokenPipeError:
        sys.stderr.close()
        return EXIT_OK
    return code


if __name__ == "__main__":
    raise SystemExit(main())
