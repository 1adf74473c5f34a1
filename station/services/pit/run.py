"""``station pit -c PIT.yaml``: load, listen, serve until SIGINT/SIGTERM (exit 0). A bad
config, key, journal or a port that cannot be listened on exits 2 before anything runs.
SIGHUP looks at tables.keys_dir at once (it is looked at every few seconds anyway)."""

from __future__ import annotations

import asyncio
import logging
import signal
import ssl
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from station.errors import ConfigError
from station.live.service.credentials import credentials_from, service_signer
from station.live.service.logs import how_to_stop, say
from station.live.service.notify import Notifier
from station.services.pit.config import load_pit_config
from station.services.pit.model import epoch_of
from station.services.pit.server import PitServer
from station.services.pit.service import PitService
from station.services.pit.settings import PitConfig
from station.settings.pagetls import is_loopback, plain_warning
from station.table.roles import PIT_BOSS
from station.web.accounts import Accounts
from station.web.lockout import HISTORY_S
from station.web.tls import server_context
from station.wire.signing import Signer

log = logging.getLogger(__name__)


def check(config_path: Path, credentials: Path | None = None) -> int:
    """Everything ``serve`` reads before it runs, read and checked; nothing written.
    ``credentials``: the folder the unit's LoadCredential= files are in."""
    from station.client import load_keys  # noqa: PLC0415
    from station.kinds.probes import clear_broker  # noqa: PLC0415

    config = load_pit_config(config_path)
    with credentials_from(credentials, "pit"):
        _signer(config)
    keys = load_keys(config.keys_dir)
    Accounts(config.pit.pins_file, (PIT_BOSS,))
    _tls(config, warn=False)
    sys.stdout.write(f"station pit: {config_path}: good; {len(keys)} table key(s) in "
                     f"{config.keys_dir}; broker {config.broker.host}:"
                     f"{config.broker.effective_port}; serving on {config.pit.host}:"
                     f"{config.pit.port}\n")
    clear = clear_broker("broker.tls", config.broker.where, config.broker.tls)
    if clear.warn:
        sys.stdout.write(clear.line() + "\n")
    return 0


def serve(config_path: Path) -> int:
    from station.live.service.logs import configure  # noqa: PLC0415

    configure()
    config = load_pit_config(config_path)
    signer = _signer(config)
    accounts = Accounts(config.pit.pins_file, (PIT_BOSS,))
    tls = _tls(config)
    service = PitService(config, signer)
    # Each account's failures in a row and its lock, as the journal left them.
    since = datetime.now(UTC) - timedelta(seconds=HISTORY_S)
    accounts.restore((name, verdict, epoch) for name, verdict, at in
                     service.journal.sign_in_history(since.isoformat().replace("+00:00", "Z"))
                     if (epoch := epoch_of(at)) is not None)
    return asyncio.run(_main(service, accounts, tls))


def _tls(config: PitConfig, *, warn: bool = True) -> ssl.SSLContext | None:
    """``pit.tls``'s context (ConfigError when its files will not do); None in clear, said
    at every start when beyond loopback."""
    access = config.pit.access
    if access.tls is None:
        if warn and not is_loopback(config.pit.host):
            log.warning("%s", plain_warning("station pit", config.pit.host))
        return None
    return server_context(access.tls, "pit.tls")


def _signer(config: PitConfig) -> Signer:
    # The .pub.pem goes to the tables (upstream.command_keys, under pit.name).
    return service_signer(config.path, "pit.signing_key_file", config.pit.signing_key_file,
                          "pit", "station pit --check")


async def _main(service: PitService, accounts: Accounts, tls: ssl.SSLContext | None) -> int:
    loop = asyncio.get_running_loop()
    stop, rescan = asyncio.Event(), asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGHUP, rescan.set)
    server = PitServer(service, accounts, tls)
    pit = service.config.pit
    try:
        await server.start()
    except OSError as exc:
        service.journal.close()
        raise ConfigError(f"pit.host/pit.port: cannot listen on {pit.host}:{pit.port} "
                          f"({exc.strerror or exc}); choose a free port or an address of this "
                          "machine") from None
    named = pit.access.server_names[0] if pit.access.server_names else pit.host
    where = f"{pit.access.scheme}://{named}:{pit.port}/"
    tables = len(service.model.floor.tables)
    say(f"station pit: {pit.name} serving {where}; {tables} table(s) trusted from "
        f"{service.config.keys_dir}; broker {service.config.broker.host}:"
        f"{service.config.broker.effective_port}; {how_to_stop()}")
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
