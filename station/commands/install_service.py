"""``station install-service [--root DIR]``: the unit, udev rules and config skeleton."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from station.errors import StationError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "install-service", help="install the systemd unit, udev rules and a config skeleton",
        description="Put the systemd unit (/etc/systemd/system/dealer-station.service), the "
        "udev rules (/etc/udev/rules.d/99-dealer-station.rules) and, unless there already is "
        "one, a config skeleton with the paytables (/etc/dealer-station/) in place, and say "
        "what was done and what is left to do. Never overwrites the config or paytables.",
    )
    p.add_argument("--root", type=Path, default=Path("/"),
                   help="install under this folder instead of / (an image being built)")
    p.add_argument("--exec-start", default=None, metavar="PATH",
                   help="the station command the unit runs (default: this installation's)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.service.install import install, next_steps, station_program  # noqa: PLC0415

    root: Path = args.root
    if not root.is_dir():
        raise StationError(f"--root {root}: not a folder; name an existing folder, or leave "
                           "it out to install on this machine")
    program: str = args.exec_start or station_program()
    if not program.startswith("/") or any(c.isspace() or ord(c) < 32 for c in program):
        raise StationError(f"--exec-start {program!r}: an absolute path without spaces")
    try:
        done = install(root, program)
    except OSError as exc:
        raise StationError(
            f"cannot write {exc.filename or root} ({exc.strerror or exc}); run it as root "
            "(sudo station install-service), or give --root a folder you can write") from exc
    for d in done:
        print(d.line())
    print(f"the unit runs: {program} run -c /etc/dealer-station/station.yaml")
    print("next:")
    for step in next_steps(root, program):
        print(f"  {step}")
    return 0
