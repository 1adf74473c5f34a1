"""``station run [-c FILE]``: the station daemon (the simulated table by default)."""

from __future__ import annotations

import argparse
import logging
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
    from station.live.assembly import build_daemon  # noqa: PLC0415
    from station.live.config import default_config_path, load_config  # noqa: PLC0415
    from station.live.service import logs  # noqa: PLC0415
    from station.live.service.runner import (  # noqa: PLC0415
        install_stop_handlers,
        serve_metrics,
        start_service,
    )

    # Plain lines; with syslog priority prefixes when stderr is the journal (systemd).
    journald = logs.configure(logging.INFO)
    path: Path = args.config or default_config_path()
    config = load_config(path)
    service = start_service(config)
    try:
        built = build_daemon(config, outbox=(service.metrics.measure
                                             if service.metrics is not None else None))
        try:
            daemon = built.daemon
            serve_metrics(service, config)
            # One line per card and state change when nobody reads the console display.
            service.wire(daemon, table_log=journald or config.display.type == "none")
            install_stop_handlers(daemon, service)
            what = (f"{built.recovered_events} events recovered from the journal"
                    if built.recovered_events else "a new journal")
            logs.say(f"station: table {config.rules.table} from {path}; {what}; results -> "
                     f"{config.results_path}; upstream -> {config.upstream.type}; "
                     f"{logs.how_to_stop()}")
            daemon.run()  # READY=1 comes from the loop, once the drivers are started
            service.stopping(f"stopping: {daemon.stop_reason}")
        finally:
            built.close()
    finally:
        service.close()
    logs.say(f"station: stopped after {daemon.events_applied} events ({daemon.stop_reason})")
    return daemon.exit_code
