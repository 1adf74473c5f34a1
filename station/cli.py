"""The ``station`` console script: a thin dispatcher over ``station.commands``.

Exit codes: 0 ok; 2 bad usage or bad input (the message names the file, line and fault).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from station import __version__
from station.commands import COMMANDS, SUMMARIES
from station.errors import StationError

EXIT_OK = 0
EXIT_USAGE = 2


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only``, the other commands are listed by their
    summary without importing their modules (``station --help`` imports none)."""
    parser = argparse.ArgumentParser(
        prog="station",
        description="Dealer-station controller for a live baccarat table.",
    )
    parser.add_argument("--version", action="version", version=f"station {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        # A module's command is its name with hyphens (install_service: install-service).
        summary = SUMMARIES.get(name.replace("_", "-"))
        if only is None or name == only or summary is None:
            importlib.import_module(f"station.commands.{name}").register(sub)
        else:
            sub.add_parser(name.replace("_", "-"), help=summary, add_help=False)
    return parser


def _command(words: list[str]) -> str:
    # The top-level options take no values, so the first word that is not one names the
    # command; "" (none, or not a command) imports no command module.
    first = next((w for w in words if not w.startswith("-")), "").replace("-", "_")
    return first if first in COMMANDS else ""


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    for n, word in enumerate(words, start=1):
        # No file name, key or value the station takes can hold a NUL byte; refusing it here
        # spares every command a ValueError from the operating system.
        if "\0" in word:
            print(f"station: error: argument {n} ({word!r}) contains a NUL byte; remove it",
                  file=sys.stderr)
            return EXIT_USAGE
    args = build_parser(_command(words)).parse_args(words)
    try:
        code: int = args.func(args)
    except StationError as exc:
        # At syslog priority err under systemd: `journalctl -p err` shows why the unit failed.
        from station.live.service.logs import ERR, say  # noqa: PLC0415

        say(f"station {args.command}: error: {exc}", ERR)
        return EXIT_USAGE
    except BrokenPipeError:
        # `station simulate --out - | head` closes our stdout early: not an error of ours.
        sys.stderr.close()
        return EXIT_OK
    return code


if __name__ == "__main__":
    raise SystemExit(main())
