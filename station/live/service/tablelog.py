"""The table log: one INFO line per card, per change of phase and per published round.

For the journal (``journalctl -u dealer-station``) when no one watches the console display:
what an operator greps when a table calls in. Raw device traffic is never logged here; it is
``station monitor --raw``'s job, run by hand on a stopped station.
"""

from __future__ import annotations

import logging

from drivers.events import (
    CardRead,
    ClockAlert,
    Command,
    DeviceLost,
    DeviceRestored,
    InputEvent,
    TimerExpired,
)
from station.live.service.watchdog import describe
from station.table.outputs import Output, Published
from station.table.station import REFUSED_OUTSIDE, Station
from station.wire.observe import Snapshot

log = logging.getLogger("station.table")
CLOCK_ALERTS = ("clock_unsynchronised", "clock_jump")


class TableLog:
    """The daemon's observer: called on the station loop only."""

    def __init__(self, station: Station) -> None:
        self._station = station
        snap = Snapshot.of(station)
        self._last = snap.status_key()
        if snap.paused:
            # Paused before the loop's first event: a restart mid-round pauses the round while
            # the daemon is assembled, before this log is there to see the change.
            log.warning("now %s", describe(snap))

    def observe(self, event: InputEvent, outputs: list[Output], seconds: float) -> None:
        if isinstance(event, CardRead) and self._station.dealing.face_down:
            # A squeeze or VIP table: no card value in the logs at info level before its
            # reveal (docs/modes.md); the reveal and the round's line carry the values.
            log.info("card (face down) from %s", event.source)
            log.debug("card %s from %s", event.code, event.source)
        elif isinstance(event, CardRead):
            log.info("card %s from %s", event.code, event.source)
        elif isinstance(event, TimerExpired):
            log.info("timer %s expired", event.timer)
        elif isinstance(event, Command) and event.action == REFUSED_OUTSIDE:
            # Refused before the table (the verifier, a wrong PIN): the actor says it all.
            log.info("command refused: %s", event.actor)
        elif isinstance(event, Command):
            log.info("command %s by %s", event.action, event.actor)
        elif isinstance(event, DeviceLost):
            log.info("%s lost: %s", event.source, event.reason)
        elif isinstance(event, DeviceRestored):
            log.info("%s restored", event.source)
        elif isinstance(event, ClockAlert):
            # An alert the pit gets (unsynchronised, a jump) at warning, so `journalctl -p
            # warning` shows it too; a state that is no alert (synchronised, unknown) at info.
            level = logging.WARNING if event.alert in CLOCK_ALERTS else logging.INFO
            log.log(level, "clock: %s: %s", event.alert.replace("_", " "), event.detail)
        for o in outputs:
            if isinstance(o, Published):
                r = o.record
                what = (f"void ({r.get('void_reason')})" if r.get("status") == "void"
                        else f"{r.get('winner')} (player {r.get('player_total')}, banker "
                        f"{r.get('banker_total')})")
                log.info("round %s published: %s", r.get("key"), what)
        snap = Snapshot.of(self._station)
        key = snap.status_key()
        if key[:2] != self._last[:2] or key[3] != self._last[3]:
            # A pause (a restart mid-round, a lost device, a bad card) holds the table until
            # someone acts: a warning, so `journalctl -p warning` lists every one.
            log.log(logging.WARNING if snap.paused else logging.INFO, "now %s", describe(snap))
        self._last = key
