"""``station accounts add|remove|passwd|list -c CONFIG``: one service's named accounts and
their roles (docs/operations.md, "Accounts and roles").

CONFIG is a station's YAML (its ``display.credentials_file``) or a pit's (``pit.pins_file``,
told by its ``pit:`` section). The PIN is read from standard input (asked twice on a
terminal), never from the command line. The file is replaced atomically, mode 0600, and
holds hashes only; ``list`` prints names and roles, never a hash. Each change is said on
standard error with who made it (the login user), for the record of the machine's logs.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "accounts", help="add, remove, re-PIN or list a service's named accounts and roles",
        description="Manage the named accounts of a station (display.credentials_file) or a "
        "pit (pit.pins_file): each a name, a PIN (scrypt) and roles (dealer, supervisor, "
        "pit_boss, surveillance, admin). The PIN comes from standard input.",
    )
    p.add_argument("action", choices=("add", "remove", "passwd", "list"))
    p.add_argument("name", nargs="?", default=None,
                   help="the account's name (1-32 of A-Z a-z 0-9 . _ -)")
    p.add_argument("--role", dest="roles", action="append", default=[],
                   help="add: a role of the account (repeat for more)")
    p.add_argument("-c", "--config", type=Path, required=True,
                   help="the station's or the pit's YAML")
    p.set_defaults(func=run)


def _file(config: Path) -> tuple[Path, tuple[str, ...], str]:
    """The accounts file ``config`` names, the roles of a line without any, and its key."""
    from station.errors import ConfigError  # noqa: PLC0415
    from station.settings.yamlload import load_yaml  # noqa: PLC0415
    from station.table.roles import PIT_BOSS, SUPERVISOR  # noqa: PLC0415

    data = load_yaml(config, "config")
    if isinstance(data, dict) and "pit" in data:
        from station.services.pit.config import load_pit_config  # noqa: PLC0415

        pit = load_pit_config(config, keys_must_exist=False)
        path, default, key = pit.pit.pins_file, (PIT_BOSS,), "pit.pins_file"
    else:
        from station.kinds.displays.web import WebSettings  # noqa: PLC0415
        from station.kinds.registry import settings_of  # noqa: PLC0415
        from station.live.config import load_config  # noqa: PLC0415

        web = settings_of(load_config(config), "display", "web")
        path = web.credentials_file if isinstance(web, WebSettings) else None
        default, key = (SUPERVISOR,), "display.credentials_file"
    if path is None:
        raise ConfigError(f"{config}: {key} is not set; name a file next to the config, e.g. "
                          "accounts.pins")
    return path, default, key


def run(args: argparse.Namespace) -> int:
    from station.commands.pin import new_pin  # noqa: PLC0415
    from station.errors import ConfigError  # noqa: PLC0415
    from station.table.roles import roles_problem  # noqa: PLC0415
    from station.web import pins  # noqa: PLC0415

    path, default, _ = _file(args.config)
    entries = pins.load(path)
    if args.action == "list":
        if args.name is not None or args.roles:
            raise ConfigError("accounts list takes only -c CONFIG")
        for e in sorted(entries, key=lambda e: e.name):
            print(f"{e.name}\t{','.join(e.roles_or(default))}")
        return 0
    name: str | None = args.name
    if name is None or not pins.NAME_RE.fullmatch(name):
        raise ConfigError(f"name {str(name)[:40]!r}: use 1-32 of A-Z a-z 0-9 . _ -, starting "
                          "with a letter or digit")
    if args.roles and args.action != "add":
        raise ConfigError("--role goes with add only (remove and add again to change roles)")
    mine = next((e for e in entries if e.name == name), None)
    others = [e for e in entries if e.name != name]
    by = os.environ.get("SUDO_USER") or getpass.getuser()
    if args.action == "remove":
        if mine is None:
            raise ConfigError(f"{path}: no account {name}")
        pins.save(path, others)
        print(f"station accounts: {by} removed {name} ({','.join(mine.roles_or(default))}) "
              f"from {path}", file=sys.stderr)
        return 0
    if args.action == "add":
        if mine is not None:
            raise ConfigError(f"{path}: {name} already has an account; `station accounts "
                              "passwd` changes its PIN")
        why = roles_problem(args.roles)
        if why is not None:
            raise ConfigError(f"account not added: {why} (--role ROLE)")
        roles: tuple[str, ...] | None = tuple(args.roles)
    else:
        if mine is None:
            raise ConfigError(f"{path}: no account {name}; `station accounts add` makes one")
        roles = mine.roles
    pin = new_pin(others)
    pins.save(path, [*others, pins.hash_pin(name, pin, roles)])
    said = ",".join(roles or default)
    print(f"station accounts: {by} {'added' if args.action == 'add' else 'changed the PIN of'} "
          f"{name} ({said}) in {path}", file=sys.stderr)
    return 0
