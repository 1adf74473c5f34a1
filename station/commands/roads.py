"""``station roads``: draw the roads of one shoe from result records or B/P/T letters.

The only place of the roads that touches files; everything it prints comes from the pure
``station.game.roads`` package.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import IO, Any

from station.errors import InputFileError
from station.game.limits import ROUND_MAX, short
from station.game.roads import (
    RecordError,
    Round,
    Scoreboard,
    roads_json,
    round_from_record,
    rounds_from_sequence,
)
from station.game.roads.svg import render_svg
from station.game.roads.text import roads_text
from station.settings.outfiles import Outputs
from station.settings.textfile import bounded_lines, decode, describe_path, parse_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "roads",
        help="draw the scoreboard roads of a shoe",
        description=(
            "Bead plate, big road, big eye boy, small road, cockroach pig, ask road and good "
            "roads of one shoe (RULES.md 8). Without --json or --svg, prints text grids."
        ),
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--results",
        metavar="FILE",
        help="round records, one JSON object per line (station simulate/replay); - for stdin",
    )
    source.add_argument(
        "--sequence", metavar="LETTERS", help="winners as B, P, T letters, e.g. BPPTB"
    )
    parser.add_argument(
        "--shoe",
        metavar="ID",
        help="with --results holding several shoes, the shoe to draw (default: the last one)",
    )
    parser.add_argument("--json", action="store_true", help="print the roads as JSON")
    parser.add_argument("--svg", metavar="FILE", help="write the scoreboard as SVG (- for stdout)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # --svg is checked against --results before anything is read, and written under a
    # temporary name moved into place at the end (station.settings.outfiles).
    outs = Outputs([args.results])
    outs.claim("--svg", args.svg)
    if args.sequence is not None:
        if args.shoe is not None:
            raise InputFileError("--shoe only applies to --results")
        try:
            rounds = rounds_from_sequence(args.sequence)
        except RecordError as exc:
            raise InputFileError(f"--sequence: {exc}") from None
        title = "Scoreboard"
    else:
        shoe, rounds = read_results(args.results, args.shoe)
        title = "Scoreboard" if shoe is None else f"Scoreboard: shoe {shoe}"
    roads = Scoreboard.from_records(rounds).snapshot()
    with outs:
        if args.json:
            sys.stdout.write(json.dumps(roads_json(roads)) + "\n")
        if args.svg is not None:
            (outs["--svg"] or sys.stdout).write(render_svg(roads, title=title))
    if not args.json and args.svg is None:
        sys.stdout.write(roads_text(roads))
    return 0


def read_results(path: str, wanted: str | None) -> tuple[str | None, list[Round]]:
    """(shoe id, its rounds in order) from a JSON Lines file of result records.

    Roads restart with every shoe, so one shoe is drawn: ``wanted``, or the last in the file.
    Void rounds are skipped (seed 003 roads show results only). A record repeated with the
    same content (at-least-once delivery) is kept once; rounds must otherwise increase.
    Raises ``InputFileError`` naming the file and line.
    """
    name = "<stdin>" if path == "-" else describe_path(path)
    shoes: dict[str | None, list[Round]] = {}
    seen: dict[tuple[str | None, int], dict[str, Any]] = {}
    last_round: dict[str | None, int] = {}
    try:
        if path == "-":
            records = list(_records(sys.stdin.buffer, name))
        else:
            with open(path, "rb") as handle:
                records = list(_records(handle, name))
    except OSError as exc:
        raise InputFileError(f"{name}: cannot read: {exc.strerror or exc}") from None
    except ValueError:  # a NUL byte in the path
        raise InputFileError(f"{name}: cannot read (not a usable file name)") from None
    for line_no, record in records:
        where = f"{name}:{line_no}"
        shoe = record.get("shoe")
        number = record.get("round")
        if shoe is not None and not isinstance(shoe, str):
            raise InputFileError(f"{where}: 'shoe' is {short(shoe)}, expected a string")
        if isinstance(number, bool) or not isinstance(number, int):
            raise InputFileError(f"{where}: 'round' is {short(number)}, expected an integer")
        if not 1 <= number <= ROUND_MAX:
            raise InputFileError(
                f"{where}: 'round' is {short(number)}, expected a round from 1 to {ROUND_MAX}")
        if (shoe, number) in seen:
            if seen[shoe, number] != record:
                raise InputFileError(
                    f"{where}: round {number} of shoe {short(shoe)} differs from before")
            continue
        if number <= last_round.get(shoe, 0):
            raise InputFileError(
                f"{where}: round {number} comes after round {last_round[shoe]} of shoe "
                f"{short(shoe)}"
            )
        seen[shoe, number] = record
        last_round[shoe] = number
        try:
            parsed = round_from_record(record)
        except RecordError as exc:
            raise InputFileError(f"{where}: {exc}") from None
        rounds = shoes.setdefault(shoe, [])
        if parsed is not None:
            rounds.append(parsed)
    if wanted is not None:
        if wanted not in shoes:
            raise InputFileError(f"{name}: no rounds of shoe {short(wanted)}")
        return wanted, shoes[wanted]
    if not shoes:
        return None, []
    shoe = next(reversed(shoes))
    return shoe, shoes[shoe]


def _records(handle: IO[bytes], name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    # Bytes in, decoded line by line, so a damaged line is reported with its number; a line
    # longer than any record is refused without being read whole.
    for line_no, raw in bounded_lines(handle, lambda n: f"{name}:{n}", "not a result record",
                                      InputFileError):
        line = decode(raw, name, InputFileError, f":{line_no}")
        if not line.strip():
            continue
        try:
            record = parse_json(line)
        except ValueError as exc:
            raise InputFileError(f"{name}:{line_no}: not JSON: {exc}") from None
        if not isinstance(record, dict):
            raise InputFileError(f"{name}:{line_no}: expected a JSON object")
        yield line_no, record

