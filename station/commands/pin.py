"""``station pin set|remove NAME [-c FILE]``: the supervisors' PINs for the web display.

The PIN is read from standard input (asked twice on a terminal), never from the command line,
where any user could read it in the process list. It is stored hashed (scrypt) in the file
named by ``display.credentials_file``, which is replaced atomically with mode 0600.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "pin", help="set or remove a supervisor's PIN for the web display",
        description="Set (from standard input) or remove a supervisor's PIN in the file named "
        "by display.credentials_file.",
    )
    p.add_argument("action", choices=("set", "remove"))
    p.add_argument("name", help="the supervisor's name (1-32 of A-Z a-z 0-9 . _ -)")
    p.add_argument("-c", "--config", type=Path, default=None,
                   help="station YAML (default: config/station.yaml)")
    p.set_defaults(func=run)


def _read_pin() -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("new PIN: ")
        if getpass.getpass("again: ") != first:
            raise ValueError("the two PINs differ")
        return first
    return sys.stdin.readline(200).rstrip("\r\n")


def new_pin(others: list[Any]) -> str:
    """A new PIN from the terminal (twice) or standard input, held to the PIN rules and to
    the others' PINs (``station pin`` and ``station accounts``): the page knows a supervisor
    by the PIN alone, so two may never share one. ConfigError says why not."""
    from station.errors import ConfigError  # noqa: PLC0415
    from station.web import pins  # noqa: PLC0415

    try:
        pin = _read_pin()
    except (ValueError, EOFError) as exc:
        raise ConfigError(f"PIN not set: {exc or 'no input'}") from exc
    problem = pins.pin_problem(pin)
    if problem is not None:
        raise ConfigError(f"PIN not set: {problem}")
    clash = next((e.name for e in others if e.matches(pin)), None)
    if clash is not None:
        raise ConfigError(f"PIN not set: {clash} already has this PIN; choose another")
    return pin


def run(args: argparse.Namespace) -> int:
    from station.errors import ConfigError  # noqa: PLC0415
    from station.kinds.displays.web import WebSettings  # noqa: PLC0415
    from station.kinds.registry import settings_of  # noqa: PLC0415
    from station.live.config import default_config_path, load_config  # noqa: PLC0415

    config = load_config(args.config or default_config_path())
    # The web display's PIN file, whichever display the config chose (its keys are read all
    # the same).
    web = settings_of(config, "display", "web")
    path = web.credentials_file if isinstance(web, WebSettings) else None
    if path is None:
        raise ConfigError(f"{config.path}: display.credentials_file is not set; name a file "
                          "next to the config, e.g. supervisors.pins")
    return change_pin(path, args.action, args.name, "station pin", "supervisor")


def change_pin(path: Path, action: str, name: str, prog: str, who: str) -> int:
    """Set (from standard input) or remove ``name``'s PIN in ``path``; also the pit's
    ``station pit pin``. Raises ConfigError."""
    from station.errors import ConfigError  # noqa: PLC0415
    from station.web import pins  # noqa: PLC0415

    if not pins.NAME_RE.fullmatch(name):
        raise ConfigError(f"name {name[:40]!r}: use 1-32 of A-Z a-z 0-9 . _ -, starting with a "
                          "letter or digit")
    entries = pins.load(path)
    others = [e for e in entries if e.name != name]
    if action == "remove":
        if len(others) == len(entries):
            raise ConfigError(f"{path}: no {who} {name}")
        pins.save(path, others)
        print(f"{prog}: removed {name} from {path}", file=sys.stderr)
        return 0
    pin = new_pin(others)
    pins.save(path, [*others, pins.hash_pin(name, pin)])
    print(f"{prog}: {'changed' if len(others) < len(entries) else 'set'} {name}'s PIN in "
          f"{path}", file=sys.stderr)
    return 0
