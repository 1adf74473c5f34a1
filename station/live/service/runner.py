"""``station run`` as a service: the notify and watchdog hooks, the table log, the metrics
endpoint, and a stop that says STOPPING and is bounded in time.

Everything here is wired onto an assembled daemon through its two hooks (``heartbeat``,
``observer``) and its stop request, so the loop itself stays the one in station/live/daemon.py.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import FrameType

from drivers.events import InputEvent
from station.errors import ConfigError
from station.live.clock import ClockWatch, source_of
from station.live.config import StationConfig
from station.live.daemon import Daemon
from station.live.install_watch import InstallWatch
from station.live.service.metrics import BIND, Metrics
from station.live.service.notify import Notifier
from station.live.service.tablelog import TableLog
from station.live.service.watchdog import Heartbeat, describe, watchdog_interval
from station.table.outputs import Output
from station.wire.observe import Snapshot

log = logging.getLogger(__name__)

# A stop that has not finished in this long is stuck (a hung driver or display): the station
# dumps every thread's stack to the log and exits 1, well inside the unit's TimeoutStopSec=15
# so systemd never has to SIGKILL it. The journal is crash-safe either way; the dump says
# where it hung.
STOP_TIMEOUT_S = 10.0


@dataclass(slots=True)
class Service:
    notifier: Notifier | None = None
    heartbeat: Heartbeat | None = None
    metrics: Metrics | None = None
    metrics_port: int | None = None
    clock: ClockWatch | None = None
    install: InstallWatch | None = None
    observers: list[Callable[[InputEvent, list[Output], float], None]] = field(
        default_factory=list)

    def wire(self, daemon: Daemon, table_log: bool) -> None:
        """Hook the service onto ``daemon`` (before its ``run``)."""
        station = daemon.station
        daemon.clock_watch = self.clock
        daemon.install_watch = self.install
        if self.clock is not None:
            self.clock.reported = station.clock  # as the journal left it: said once only
        if self.metrics is not None:
            self.metrics.attach(station)
            if self.clock is not None:
                self.metrics.watch_clock(self.clock)
            if self.install is not None:
                self.metrics.watch_install(self.install)
            self.observers.append(self.metrics.observe)
        if table_log:
            self.observers.append(TableLog(station).observe)
        if self.observers:
            observers = tuple(self.observers)

            def observe(event: InputEvent, outputs: list[Output], seconds: float) -> None:
                for o in observers:
                    o(event, outputs, seconds)

            daemon.observer = observe
        if self.notifier is not None:
            self.heartbeat = Heartbeat(self.notifier,
                                       lambda: describe(Snapshot.of(station)),
                                       watchdog_interval())
            daemon.heartbeat = self.heartbeat

    def stopping(self, why: str) -> None:
        if self.notifier is not None:
            self.notifier.stopping(why)

    def close(self) -> None:
        if self.metrics is not None:
            self.metrics.close()
        if self.notifier is not None:
            self.notifier.close()


def start_service(config: StationConfig, env: Mapping[str, str] | None = None) -> Service:
    """The notifier (when systemd asked for one), the metrics, endpoint not yet serving, and
    the clock check with the source ``env`` names (station.live.clock.SOURCE_ENV; ``env``
    defaults to the process's environment). A bad NOTIFY_SOCKET is logged; a clock source
    that is not one raises ConfigError."""
    source = source_of(os.environ if env is None else env) if config.clock_check else None
    service = Service(notifier=Notifier.from_env(env))
    if config.metrics_port is not None:
        service.metrics = Metrics()
    if source is not None:
        service.clock = ClockWatch(source[0], said_by=source[1])
    service.install = InstallWatch()
    return service


def serve_metrics(service: Service, config: StationConfig) -> None:
    """Open the endpoint; raises ConfigError (exit 2, before READY) when the port is taken."""
    if service.metrics is None or config.metrics_port is None:
        return
    try:
        service.metrics_port = service.metrics.serve(config.metrics_port)
    except OSError as exc:
        raise ConfigError(
            f"{config.path}: metrics.port: cannot listen on {BIND}:{config.metrics_port} "
            f"({exc.strerror or exc}); choose a free port, or null to turn the metrics off"
        ) from exc
    log.info("metrics on http://%s:%d/metrics", BIND, service.metrics_port)


def install_stop_handlers(daemon: Daemon, service: Service,
                          timeout_s: float = STOP_TIMEOUT_S) -> None:
    """SIGTERM and SIGINT: STOPPING=1 at once, the loop finishes the event in hand and stops
    cleanly; past ``timeout_s`` the stop is stuck, so dump the stacks and exit 1."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        # The deadline first: nothing after it may keep the stop from being bounded.
        with contextlib.suppress(RuntimeError, ValueError):  # stderr closed: no dump, still stop
            faulthandler.dump_traceback_later(timeout_s, exit=True)
        daemon.request_stop()
        # Python runs handlers on the main thread, which is the loop's: the notifier is
        # never used from two threads at once.
        service.stopping(f"stopping ({name})")

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    # `station fleet` starts its tables with these blocked, so a stop sent while a table is
    # still starting waits here for the handlers instead of killing it half-started; a
    # blocked signal is delivered now. Anywhere else nothing is blocked and this does nothing.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
