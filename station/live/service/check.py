"""``station check-config``: what a loaded config points at, opened and reported.

Each probe is short and never changes anything. The devices, the outlet and the display are
opened by their kinds' probes (``station.kinds.registry``): a serial port is opened
(exclusively, as the station would) and closed, a camera gives one frame, the broker gets
one MQTT connect under a client id of its own (so a running station's session is never
taken over). A folder is tested for write access with ``os.access`` rather than by writing,
and the metrics port is bound and released.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

from station.errors import ConfigError
from station.kinds.probes import Finding, writable
from station.kinds.registry import SIGNED, kind
from station.live.service.metrics import BIND
from station.settings.configmodel import StationConfig

__all__ = ["Finding", "check"]



def check(config: StationConfig) -> list[Finding]:
    return list(_all(config))


def _probe(config: StationConfig, family: str, name: str) -> Iterator[Finding]:
    entry = kind(family, name)
    if entry.probe is not None:
        yield from entry.probe(config)


def _all(config: StationConfig) -> Iterator[Finding]:
    rules = config.rules
    pt = config.paytable
    # The bet guard (docs/paytables.md) is said only where it acts: a table with bets.
    guard = "" if pt is None else (
        f", bet guard {rules.bet_guard}" + ("" if rules.bet_guard == "off"
                                            else f" (limit {rules.bet_guard_max_rtp!r})"))
    yield Finding(True, "table", f"{rules.table}, {rules.decks} decks, paytable "
                  f"{'none' if pt is None else pt.path.name}"
                  f"{' ' + ','.join(pt.variants) if pt is not None and pt.variants else ''}"
                  f"{guard}")
    yield from _probe(config, "reader", config.reader.type)
    yield from _probe(config, "cut_card", config.cut_card.type)
    yield writable("journal.path", Path(config.journal_path))
    for key, value in (("results.path", config.results_path),
                       ("results.announcements_path", config.announcements_path)):
        if value is not None and value != "-":
            yield writable(key, Path(value))
    if config.recording_dir is not None:
        yield writable("recording.dir", Path(config.recording_dir), folder=True)
    yield _signing_key(config)
    yield from _probe(config, "upstream", config.upstream.type)
    yield from _probe(config, "display", config.display.type)
    if config.metrics_port is not None:
        yield _metrics(config.metrics_port)


def _signing_key(config: StationConfig) -> Finding:
    from station.wire.signing import load_signer  # noqa: PLC0415

    up = config.upstream
    try:
        load_signer(up.signing_key_file)
    except ConfigError as exc:
        if SIGNED not in kind("upstream", up.type).traits and up.signing_key_file is None:
            return Finding(True, "upstream.signing_key_file", f"none: the {up.type} upstream's "
                           "messages go out unsigned (the unit's credential signing-key, or "
                           "check-config --credentials DIR, gives one)")
        return Finding(False, "upstream.signing_key_file", str(exc))
    where = up.signing_key_file or "the credential signing-key"
    return Finding(True, "upstream.signing_key_file", f"{where}: an Ed25519 key")


def _metrics(port: int) -> Finding:
    if port == 0:
        return Finding(True, "metrics.port", "0: a free port is picked at each start")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((BIND, port))
        except OSError as exc:
            return Finding(False, "metrics.port", f"{BIND}:{port} cannot be bound "
                           f"({exc.strerror or exc}); is a station already running? else "
                           "choose another port")
    return Finding(True, "metrics.port", f"{BIND}:{port} is free")
