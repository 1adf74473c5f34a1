"""``station pit``: the pit service, its bosses' PINs and its shift report (docs/pit.md).

- ``station pit -c PIT.yaml``: run the service;
- ``station pit pin set|remove NAME -c PIT.yaml``: a pit boss's PIN in ``pit.pins_file``
  (read from standard input, hashed, as ``station pin``);
- ``station pit report -c PIT.yaml --from ISO --to ISO [--by table|dealer] [--out FILE]``:
  the shift's statistics as CSV (station.services.pit.report);
- ``station pit verify -c PIT.yaml``: the pit's journal against its hash chain
  (station.services.pit.verify).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from station.errors import ConfigError

HELP = "the pit: one console for every table on the broker"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "pit", help=HELP,
        description="Run the pit (-c PIT.yaml): subscribe to every table's events and status "
        "on the broker, verify them with the tables' keys, serve the floor and table pages "
        "and the JSON API, and send the pit bosses' actions as signed commands. "
        "`pit pin` sets a pit boss's PIN; `pit report` writes the shift's statistics.",
    )
    p.add_argument("-c", "--config", type=Path, default=None, help="the pit's YAML")
    p.add_argument("--check", action="store_true",
                   help="check the config, the tables' keys, the pit's key and the PINs file, "
                   "then exit (0: all good) without connecting or listening")
    p.add_argument("--credentials", type=Path, default=None, metavar="DIR",
                   help="with --check: the folder of the unit's credentials (pit-key.pem, "
                   "mqtt-credentials), as its LoadCredential= would give them")
    p.set_defaults(func=run)
    inner = p.add_subparsers(dest="pit_command", metavar="{pin,report,verify}")
    pin = inner.add_parser("pin", help="set or remove a pit boss's PIN",
                           description="Set (from standard input) or remove a pit boss's PIN "
                           "in the file named by pit.pins_file.")
    pin.add_argument("action", choices=("set", "remove"))
    pin.add_argument("name", help="the pit boss's name (1-32 of A-Z a-z 0-9 . _ -)")
    pin.add_argument("-c", "--config", type=Path, default=None, dest="pin_config",
                     help="the pit's YAML")
    pin.set_defaults(func=run_pin)
    report = inner.add_parser("report", help="the shift's statistics as CSV",
                              description="Rounds per hour, pauses, voids and time paused, by "
                              "table or by dealer, from the pit's journal, as CSV.")
    report.add_argument("-c", "--config", type=Path, default=None, dest="report_config",
                        help="the pit's YAML")
    report.add_argument("--from", dest="start", required=True, metavar="ISO",
                        help="from this time (ISO 8601)")
    report.add_argument("--to", dest="end", required=True, metavar="ISO",
                        help="to this time (ISO 8601)")
    report.add_argument("--by", choices=("table", "dealer"), default="table")
    report.add_argument("--out", type=Path, default=None, help="the CSV file (default: stdout)")
    report.set_defaults(func=run_report)
    verify = inner.add_parser("verify", help="check the pit's journal against its chain",
                              description="Walk the pit journal's hash chain from its header, "
                              "check its head file, and hold every row to the chain: an "
                              "edited, added or deleted row is named. Exit 0 verified, 1 "
                              "problems found, 2 not readable.")
    verify.add_argument("-c", "--config", type=Path, default=None, dest="verify_config",
                        help="the pit's YAML (its pit.journal is read)")
    verify.set_defaults(func=run_verify)


def _config(args: argparse.Namespace, inner: str | None = None) -> Path:
    path: Path | None = (getattr(args, inner) if inner else None) or args.config
    if path is None:
        raise ConfigError("no pit config: name it with -c PIT.yaml (config/pit.yaml is an "
                          "example)")
    args.config = path
    return path


def run(args: argparse.Namespace) -> int:
    from station.services.pit.run import check, serve  # noqa: PLC0415

    if args.check:
        return check(_config(args), args.credentials)
    if args.credentials is not None:
        raise ConfigError("--credentials goes with --check; the unit itself gets its "
                          "credentials from systemd")
    return serve(_config(args))


def run_pin(args: argparse.Namespace) -> int:
    from station.commands.pin import change_pin  # noqa: PLC0415
    from station.services.broker.config import KEYS_FIX  # noqa: PLC0415
    from station.services.pit.config import load_pit_config  # noqa: PLC0415

    # A PIN needs no table's key: set before the fleet (or keygen) has made tables.keys_dir.
    config = load_pit_config(_config(args, "pin_config"), keys_must_exist=False)
    path = config.pit.pins_file
    if path is None:
        raise ConfigError(f"{config.path}: pit.pins_file is not set; name a file next to the "
                          "config, e.g. pit.pins")
    code = change_pin(path, args.action, args.name, "station pit pin", "pit boss")
    if code == 0 and not config.keys_dir.is_dir():
        print(f"station pit pin: note: tables.keys_dir {config.keys_dir} does not exist yet; "
              f"`station pit` needs it: {KEYS_FIX}", file=sys.stderr)
    return code


def run_report(args: argparse.Namespace) -> int:
    from station.services.pit import report  # noqa: PLC0415

    _config(args, "report_config")
    code: int = report.run(args)
    return code


def run_verify(args: argparse.Namespace) -> int:
    """Print the verdict; 0 verified, 1 problems found, 2 not a readable pit journal."""
    import sqlite3  # noqa: PLC0415

    from station.services.pit.report import journal_path  # noqa: PLC0415
    from station.services.pit.verify import MAX_SAID, verify_pit_journal  # noqa: PLC0415

    path = journal_path(_config(args, "verify_config"))
    try:
        problems, summary = verify_pit_journal(path)
    except (OSError, sqlite3.Error) as exc:
        print(f"station pit verify: {path}: cannot be read as a pit journal ({exc}); name "
              "the pit's journal in pit.journal", file=sys.stderr)
        return 2
    print(summary)
    for problem in problems[:MAX_SAID]:
        print(f"FAILED: {problem}")
    if len(problems) > MAX_SAID:
        print(f"FAILED: and {len(problems) - MAX_SAID} more")
    print("verified" if not problems else f"{len(problems)} problem(s)")
    return 0 if not problems else 1
