"""``station pit -c PIT.yaml``: load, listen, serve until SIGINT/SIGTERM (exit 0). A bad
config, key, journal or a port that cannot be listened on exits 2 before anything runs.
SIGHUP looks at tables.keys_dir at once (it is looked at every few seconds anyway)."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from pathlib import Path

from station.errors import ConfigError
from station.live.service.notify import Notifier
from station.services.pit.config import load_pit_config
from station.services.pit.server import PitServer
from station.services.pit.service import PitService
from station.services.pit.settings import PitConfig
from station.web.pins import PinChecker
from station.wire.signing import Signer, default_key_path, load_signer

log = logging.getLogger(__name__)


def check(config_path: Path) -> int:
    """Everything ``serve`` reads before it runs, read and checked; nothing written."""
    from station.client import load_keys  # noqa: PLC0415

    config = load_pit_config(config_path)
    _signer(config)
    keys = load_keys(config.keys_dir)
    PinChecker(config.pit.pins_file)
    sys.stdout.write(f"station pit: {config_path}: good; {len(keys)} table key(s) in "
                     f"{config.keys_dir}; broker {config.broker.host}:"
                     f"{config.broker.effective_port}; serving on {config.pit.host}:"
                     f"{config.pit.port}\n")
    return 0


def serve(config_path: Path) -> int:
    from station.live.service.logs import configure  # noqa: PLC0415

    configure()
    config = load_pit_config(config_path)
    signer = _signer(config)
    pins = PinChecker(config.pit.pins_file)
    service = PitService(config, signer)
    return asyncio.run(_main(service, pins))


def _signer(config: PitConfig) -> Signer:
    if config.pit.signing_key_file is None and default_key_path() is None:
        raise ConfigError(f"{config.path}: pit.signing_key_file is not set and there is no "
                          "systemd credential signing-key; `station keygen DIR --name pit` "
                          "makes a key pair: name the .pem here, give the .pub.pem to the "
                          "tables (upstream.command_keys)")
    return load_signer(config.pit.signing_key_file)


async def _main(service: PitService, pins: PinChecker) -> int:
    loop = asyncio.get_running_loop()
    stop, rescan = asyncio.Event(), asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGHUP, rescan.set)
    server = PitServer(service, pins)
    pit = service.config.pit
    try:
        await server.start()
    except OSError as exc:
        service.journal.close()
        raise ConfigError(f"pit.host/pit.port: cannot listen on {pit.host}:{pit.port} "
                          f"({exc.strerror or exc}); choose a free port or an address of this "
                          "machine") from None
    where = f"http://{pit.host}:{pit.port}/"
    tables = len(service.model.floor.tables)
    sys.stderr.write(f"station pit: {pit.name} serving {where}; {tables} table(s) trusted "
                     f"from {service.config.keys_dir}; broker {service.config.broker.host}:"
                     f"{service.config.broker.effective_port}; Ctrl-C stops\n")
    sys.stderr.flush()
    notifier = Notifier.from_env()
    if notifier is not None:
        notifier.ready(f"serving {where}")
    try:
        await service.run(stop, rescan)
    finally:
        if notifier is not None:
            notifier.stopping("stopping")
            notifier.close()
        await server.stop()
        service.close()
    return 0
