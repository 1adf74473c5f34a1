"""``station fleet -c CONFIG --tables N --dir DIR``: N simulated stations, each its own
``station run`` process, with its own journal, key and table id, publishing to CONFIG's
broker; the public keys in ``DIR/keys/`` for the pit (docs/fleet.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "fleet", help="run N simulated stations publishing to one broker, for the pit",
        description="Run N simulated stations from CONFIG (its upstream must be mqtt), each "
        "its own `station run` process with its table id <table.id>-01, -02, ..., its own "
        "journal, key and config under DIR/<table>/, and its public key in "
        "DIR/keys/<table>.pub. SIGINT/SIGTERM stop them all; a table that ends by itself is "
        "reported, not restarted.",
    )
    p.add_argument("-c", "--config", type=Path, required=True,
                   help="the station YAML every table is made from (e.g. config/fleet.yaml)")
    p.add_argument("--tables", type=int, required=True, metavar="N",
                   help="how many tables (1-500)")
    p.add_argument("--dir", type=Path, required=True, metavar="DIR",
                   help="the fleet's folder: one folder per table, and keys/")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.services.fleet.plan import plan, write  # noqa: PLC0415
    from station.services.fleet.supervise import supervise  # noqa: PLC0415

    fleet = plan(args.config, args.tables, args.dir)
    write(fleet)
    return supervise(fleet)
