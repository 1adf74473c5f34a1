"""``station install-service [--service NAME] [--root DIR]``: a service's unit and config
skeleton (the station's also its udev rules); the services are station.live.service.install's
registry."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from station.errors import StationError
from station.live.service.install import SERVICES


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "install-service", help="install a service's systemd unit and config skeleton",
        description="Put a service's systemd unit (/etc/systemd/system/) and, unless there "
        "already is one, its config skeleton (/etc/dealer-SERVICE/) in place, and say what was "
        "done and what is left to do; the station's also its udev rules and paytables. Never "
        "overwrites a config or paytable.",
    )
    p.add_argument("--service", choices=list(SERVICES), default="station",
                   help="which: the dealer station (default), the pit or the journal archive")
    p.add_argument("--root", type=Path, default=Path("/"),
                   help="install under this folder instead of / (an image being built)")
    p.add_argument("--exec-start", default=None, metavar="PATH",
                   help="the station command the unit runs (default: this installation's)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.live.service.install import (  # noqa: PLC0415
        exec_start,
        install,
        next_steps,
        station_program,
        unit_text,
    )

    root: Path = args.root
    if not root.is_dir():
        raise StationError(f"--root {root}: not a folder; name an existing folder, or leave "
                           "it out to install on this machine")
    program: str = args.exec_start or station_program()
    if not program.startswith("/") or any(c.isspace() or ord(c) < 32 for c in program):
        raise StationError(f"--exec-start {program!r}: an absolute path without spaces")
    service = SERVICES[args.service]
    try:
        done = install(root, program, service)
    except OSError as exc:
        raise StationError(
            f"cannot write {exc.filename or root} ({exc.strerror or exc}); run it as root "
            "(sudo station install-service), or give --root a folder you can write") from exc
    for d in done:
        print(d.line())
    print(f"the unit runs: {exec_start(unit_text(service, program))}")
    print("next:")
    for step in next_steps(root, program, service):
        print(f"  {step}")
    return 0
