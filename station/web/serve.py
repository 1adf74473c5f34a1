"""Wiring of the web display for ``station run`` (``display.type: web``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from station.configmodel import StationConfig
from station.daemon import Daemon
from station.web.display import WebControl, WebDisplay
from station.web.hub import Hub
from station.web.pins import PinChecker
from station.web.server import WebServer
from station.web.view import Surroundings


def web_display(config: StationConfig, daemon: Daemon, devices: list[str],
                closers: list[Callable[[], None]],
                rounds: Iterable[dict[str, Any]] = ()) -> WebDisplay:
    """The display, listening before the loop starts (a taken port is a config error, exit
    2). Its server is stopped by ``closers`` after the loop, so pages then go offline.
    ``rounds``: the shoe's rounds published before a restart, for its results and roads."""
    settings = config.display
    outlet = daemon.outlet
    connected: Callable[[], bool | None] | None = None
    if outlet is not None:
        # Part of every outlet's interface (station.upstream.outlet): None for a file.
        def connected() -> bool | None:
            return outlet.connected
    hub = Hub()
    around = Surroundings(config.rules.table, settings.language, settings.sound,
                          config.upstream.type, None, tuple(devices))
    display = WebDisplay(daemon.station, hub, around, connected, rounds)
    control = WebControl(daemon.post, display)
    server = WebServer(hub, control, PinChecker(settings.credentials_file), settings.host,
                       settings.port)
    server.start()
    closers.append(server.stop)
    return display
