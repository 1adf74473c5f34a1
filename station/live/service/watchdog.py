"""The loop's heartbeat: READY once, STATUS on every change, WATCHDOG=1 on time.

``Heartbeat`` is the daemon's ``heartbeat`` hook. The daemon calls it from its own loop, the
one that owns the state machine, before every wait, and waits no longer than the hook asks.
So a ping proves that loop came round: a loop stuck inside an event (a display that hangs,
a driver call that never returns) stops the pings and systemd restarts the station. No other
thread ever pings; a side thread would keep a hung machine looking alive.

The first call is READY=1: the daemon makes it only after the display is showing, the
publisher and the drivers are started, and the journal was opened before that.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from station.live.service.notify import Notifier
from station.wire.observe import Snapshot

# Ping at half of WatchdogSec, as sd_watchdog_enabled(3) advises: one late wake-up then
# still lands inside the window.
PING_FRACTION = 0.5


def watchdog_interval(env: Mapping[str, str] | None = None, pid: int | None = None
                      ) -> float | None:
    """Seconds between pings from ``WATCHDOG_USEC``/``WATCHDOG_PID``, or None when systemd
    asked for none (or asked another process: ``WATCHDOG_PID`` is not ours)."""
    env = os.environ if env is None else env
    usec = env.get("WATCHDOG_USEC", "")
    if not usec.isdigit() or int(usec) <= 0:
        return None
    owner = env.get("WATCHDOG_PID", "")
    if owner and owner != str(os.getpid() if pid is None else pid):
        return None
    return int(usec) / 1e6 * PING_FRACTION


def describe(snap: Snapshot) -> str:
    """``STATUS=``: what ``systemctl status`` shows, e.g. ``dealing, shoe t1-...-1 round 12``."""
    text = snap.phase.replace("_", " ")
    if snap.shoe is not None:
        text += f", shoe {snap.shoe} round {snap.round_no}"
    if snap.paused and snap.reasons:
        text += ": " + "; ".join(snap.reasons)
    return text


class Heartbeat:
    """Call it from the station loop only. Returns how long the loop may wait before it must
    call again (None: no watchdog, wait as long as you like)."""

    def __init__(self, notifier: Notifier, status: Callable[[], str],
                 interval_s: float | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._notifier = notifier
        self._status = status
        self.interval_s = interval_s
        self._clock = clock
        self._ready = False
        self._last_status = ""
        self._next_ping = 0.0
        self.pings = 0

    @property
    def ready(self) -> bool:
        return self._ready

    def __call__(self) -> float | None:
        status = self._status()
        if not self._ready:
            self._ready = True
            self._notifier.ready(status)
        elif status != self._last_status:
            self._notifier.status(status)
        self._last_status = status
        if self.interval_s is None:
            return None
        now = self._clock()
        if now >= self._next_ping:
            self._notifier.watchdog()
            self.pings += 1
            self._next_ping = now + self.interval_s
        return max(0.0, self._next_ping - now)
