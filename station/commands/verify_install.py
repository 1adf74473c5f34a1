"""``station verify-install``: every installed file of the station against its wheel's
``RECORD`` hashes (station.service.install_check)."""

from __future__ import annotations

import argparse
from typing import Any

EXIT_DIFFERS = 1  # the install was checked, and some file is not what the wheel installed


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "verify-install", help="check the installed files against the wheel's RECORD hashes",
        description="Check every file pip installed from the station's wheel against the "
        "SHA-256 in the installation's RECORD, and every file in the station's package "
        "folders for one RECORD does not list. Exit 0 when all match, 1 naming each file "
        "that changed, is missing or was added, 2 when there is no installed wheel to check "
        "(an editable install from a checkout has no hashes for its sources).",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.service.install_check import DISTRIBUTION, verify  # noqa: PLC0415

    report = verify()
    for d in report.differences:
        print(d.line())
    tail = (f"{report.unhashed} RECORD line(s) without a hash not checked: RECORD itself "
            "and the .pyc files compiled at install")
    if report.differences:
        print(f"{DISTRIBUTION} in {report.root}: {len(report.differences)} file(s) differ "
              f"from the installed wheel ({report.checked} checked; {tail})")
        return EXIT_DIFFERS
    print(f"{DISTRIBUTION} in {report.root}: all {report.checked} files match their RECORD "
          f"hashes ({tail})")
    return 0
