"""``station run [-c FILE]``: the station daemon (the simulated table by default)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "run", help="run the station daemon",
        description="Run the station: read the shoe, prompt the dealer, publish rounds. "
        "Stops cleanly on SIGINT/SIGTERM.",
    )
    p.add_argument("-c", "--config", type=Path, default=None,
                   help="station YAML (default: config/station.yaml, the simulated table)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here: the daemon's modules (journal, MQTT, signatures) cost a tenth of a second
    # that no other command should pay at start.
    from station.assembly import build_daemon  # noqa: PLC0415
    from station.config import default_config_path, load_config  # noqa: PLC0415
    from station.daemon import install_signal_handlers  # noqa: PLC0415

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    # transitions logs every state change at INFO: the station's own display and recording
    # already say all of it, and journald should not get a line per card twice over.
    logging.getLogger("transitions").setLevel(logging.WARNING)
    path: Path = args.config or default_config_path()
    config = load_config(path)
    built = build_daemon(config)
    daemon = built.daemon
    install_signal_handlers(daemon)
    what = (f"{built.recovered_events} events recovered from the journal"
            if built.recovered_events else "a new journal")
    print(f"station: table {config.rules.table} from {path}; {what}; results -> "
          f"{config.results_path}; upstream -> {config.upstream.type}; Ctrl-C stops",
          file=sys.stderr, flush=True)
    try:
        daemon.run()
    finally:
        built.close()
    print(f"station: stopped after {daemon.events_applied} events ({daemon.stop_reason})",
          file=sys.stderr)
    return daemon.exit_code
