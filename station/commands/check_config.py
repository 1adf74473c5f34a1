"""``station check-config -c FILE``: validate a config and open what it names."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

EXIT_PROBLEM = 1  # the config is valid, but something it names is not usable


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "check-config", help="validate a config and open each device it names",
        description="Validate a station config, then open each configured device (the serial "
        "scanner, the cut-card adapter), the MQTT broker, the files and folders the station "
        "writes and the metrics port, and say what was found. Exit 0 when all is well, 2 "
        "when the config is invalid, 1 when something it names cannot be used.",
    )
    p.add_argument("-c", "--config", type=Path, required=True, help="station YAML")
    p.add_argument("--credentials", type=Path, default=None, metavar="DIR",
                   help="a folder holding the unit's credentials (signing-key, "
                   "mqtt-credentials), as the unit's LoadCredential= would give them")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.live.service.credentials import credentials_from  # noqa: PLC0415

    # What systemd would set: each credential the unit loads, under its own ID.
    with credentials_from(args.credentials, "station"):
        return _check(args.config)


def _check(path: Path) -> int:
    from station.live.config import load_config  # noqa: PLC0415
    from station.live.service.check import check  # noqa: PLC0415

    config = load_config(path)
    print(f"config {path}: valid (relative paths are taken from {Path.cwd()}; the unit's "
          "working directory is /var/lib/dealer-station)")
    findings = check(config)
    for f in findings:
        print(f.line())
    bad = [f for f in findings if not f.ok]
    if bad:
        print(f"{len(bad)} problem(s): the station would not run as configured")
        return EXIT_PROBLEM
    print("all good")
    return 0
