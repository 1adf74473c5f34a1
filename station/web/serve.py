"""Wiring of the web display for ``station run`` (``display.type: web``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from drivers.base import EventSource
from drivers.events import InputEvent
from station.settings.configmodel import StationConfig
from station.settings.pagetls import IN_CLEAR_ON_LOOPBACK, PageAccess, is_loopback, plain_warning
from station.table.station import Station
from station.upstream.outlet import Outlet
from station.web.display import WebControl, WebDisplay
from station.web.hub import Hub
from station.web.pins import PinChecker
from station.web.server import WebServer
from station.web.tls import server_context
from station.web.view import Surroundings

log = logging.getLogger(__name__)


class Loop(Protocol):
    """What the page needs of the loop that owns the station (``station.live.daemon.Daemon``):
    the station to show, the outlet to ask whether upstream is connected, and the queue its
    commands are posted to. Named here so the page does not depend on the live layer."""

    @property
    def station(self) -> Station: ...

    @property
    def outlet(self) -> Outlet | None: ...

    def post(self, source: EventSource, event: InputEvent) -> None: ...


def web_display(config: StationConfig, daemon: Loop, devices: list[str],
                closers: list[Callable[[], None]],
                rounds: Iterable[dict[str, Any]] = (), *, host: str, port: int,
                language: str, sound: bool, credentials_file: Path | None,
                access: PageAccess = IN_CLEAR_ON_LOOPBACK) -> WebDisplay:
    """The display, listening on ``host``:``port`` before the loop starts (a taken port is a
    config error, exit 2). Its server is stopped by ``closers`` after the loop, so pages then
    go offline. ``rounds``: the shoe's rounds published before a restart, for its results and
    roads. The keyword arguments are the web display kind's settings
    (station.kinds.displays.web), which read them from ``display:``."""
    outlet = daemon.outlet
    connected: Callable[[], bool | None] | None = None
    if outlet is not None:
        # Part of every outlet's interface (station.upstream.outlet): None for a file.
        def connected() -> bool | None:
            return outlet.connected
    hub = Hub()
    around = Surroundings(config.rules.table, language, sound,
                          config.upstream.type, None, tuple(devices))
    display = WebDisplay(daemon.station, hub, around, connected, rounds)
    control = WebControl(daemon.post, display)
    tls = None
    if access.tls is not None:
        tls = server_context(access.tls, "display.tls")  # ConfigError: exit 2 before the loop
    elif not is_loopback(host):
        log.warning("%s", plain_warning("display", host))
    server = WebServer(hub, control, PinChecker(credentials_file), host, port,
                       access=access, tls=tls)
    server.start()
    closers.append(server.stop)
    return display
