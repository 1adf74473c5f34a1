"""``station verify-install``: every installed file of the station against its wheel's
``RECORD`` hashes (station.live.install_check), and with ``-c`` the config and paytable
files against the hashes their journal recorded (station.settings.configprint)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_DIFFERS = 1  # the install was checked, and some file is not what the wheel installed
EXIT_UNCHECKED = 2  # nothing to check the install against (an editable install)


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "verify-install", help="check the installed files against the wheel's RECORD hashes",
        description="Check every file pip installed from the station's wheel against the "
        "SHA-256 in the installation's RECORD, and every file in the station's package "
        "folders for one RECORD does not list; with -c, also the config file and its "
        "paytable against the hashes the config's journal recorded. Exit 0 when all match, "
        "1 naming each file that changed, is missing or was added, 2 when there is no "
        "installed wheel to check (an editable install from a checkout has no hashes for "
        "its sources) and nothing else differs.",
    )
    p.add_argument("-c", "--config", type=Path, metavar="CONFIG",
                   help="also check CONFIG and its paytable against the hashes in the journal "
                   "it names (journal.path): its header's, or its last config change's")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.errors import StationError  # noqa: PLC0415
    from station.live.install_check import DISTRIBUTION, verify  # noqa: PLC0415

    config_differs = _check_config(args.config) if args.config is not None else False
    try:
        report = verify()
    except StationError as exc:
        if args.config is None:
            raise
        print(f"install not checked: {exc}", file=sys.stderr)
        return EXIT_DIFFERS if config_differs else EXIT_UNCHECKED
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
    return EXIT_DIFFERS if config_differs else 0


def _check_config(path: Path) -> bool:
    """Print whether the config file and its paytable match the journal's last hashes;
    True when one differs. A journal from before hashes were recorded is said, and passes."""
    from drivers.events import ConfigChanged  # noqa: PLC0415
    from station.errors import StationError  # noqa: PLC0415
    from station.journal import JournalError, verify_journal  # noqa: PLC0415
    from station.journal.export import records  # noqa: PLC0415
    from station.live.config import load_config  # noqa: PLC0415
    from station.settings.configprint import ConfigPrint, print_of  # noqa: PLC0415

    config = load_config(path)
    journal = Path(config.journal_path)
    if not journal.exists():
        raise StationError(f"{path}: journal.path {journal}: no journal there to check the "
                           "config against; start the station once, or name its config")
    try:
        report = verify_journal(journal)
        last, where = ConfigPrint.from_json(report.header.config), "header"
        for record in records(report):
            if isinstance(record.event, ConfigChanged):
                last, where = ConfigPrint.of_event(record.event), f"record {record.seq}"
    except JournalError as exc:
        raise StationError(f"{path}: journal.path: {exc}") from exc
    if last is None:
        print(f"note: the journal {journal} records no config hashes (made by a station "
              "before they were recorded): the config and paytable files are not checked; "
              "the next start records them")
        return False
    paytable = Path(config.paytable.path) if config.paytable is not None else None
    now = print_of(config.source, path, paytable)
    differs = False
    for name, file, have, want in (("config", path, now.config, last.config),
                                   ("paytable", paytable, now.paytable, last.paytable)):
        shown = file if file is not None else "(none)"
        if have == want:
            print(f"matches: {name} {shown} (the journal's {where})")
            continue
        differs = True
        print(f"changed: {name} {shown}: sha256 {have or 'none'}, the journal's {where} "
              f"has {want or 'none'}")
    return differs
