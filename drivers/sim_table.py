"""The simulated dealer at realistic pace, on its own thread (``station run``).

The dealer (``drivers.simulated``) is pure and says what to do and after how long; this
driver sleeps the delays and posts each event stamped with the wall clock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from drivers.base import EventSource
from drivers.simulated import Due, SimulatedDealer

log = logging.getLogger(__name__)


class SimulatedTable(EventSource):
    """The simulated dealer at realistic pace, on its own thread (``station run``).

    The station tells it what is due after every event; it takes the latest, waits the
    dealer's delay, posts an event stamped with the wall clock, and waits until the station
    has applied it before looking at what is due next, so it never acts on a stale prompt.
    """

    name = "sim-shoe"

    def __init__(self, dealer: SimulatedDealer, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.dealer = dealer
        self._clock = clock
        self._cond = threading.Condition()
        self._due: Due | None = None
        self._latest: Due | None = None  # the last due told, never taken
        self._round = 0
        self._acked = False

    def station_changed(self, due: Any) -> None:
        with self._cond:
            self._due = self._latest = due
            self._cond.notify_all()

    def round_changed(self, round_no: int) -> None:
        with self._cond:
            self._round = round_no

    def applied(self) -> None:
        with self._cond:
            self._acked = True
            self._cond.notify_all()

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def _run(self) -> None:
        while not self.stopping.is_set():
            with self._cond:
                while self._due is None and not self.stopping.is_set():
                    self._cond.wait()
                due, self._due = self._due, None
            if due is None:
                return
            with self._cond:
                self.dealer.round_no = self._round
            steps = self.dealer.steps(due)
            if not steps and not self.dealer.finished:
                continue  # paused, waiting for someone else's supervisor: look again later
            if not steps and self.dealer.finished:
                # Nothing more will ever happen at this table: end the thread, so the owner
                # hears of it (drivers.base) instead of waiting on a frozen display.
                log.info("simulated table: nothing more to deal (%s)",
                         "the shoes are played" if due is Due.NEW_SHOE else f"station {due.value}")
                for f in self.dealer.unused_faults():
                    where = f"card {f.card}" if f.card is not None else f"round {f.after_round}"
                    log.warning("simulated table: fault %s at %s of shoe %d never happened",
                                f.kind, where, f.shoe)
                return
            expected = due  # what the station asks after the dealer's own last event
            for i, (delay, event) in enumerate(steps):
                if self.stopping.wait(delay):
                    return
                with self._cond:
                    if self._latest is not expected:
                        # Someone else's event moved the table on during the delay (a pit's
                        # void mid-round, a supervisor's pause): the rest was for a display
                        # that is gone. The loop looks at what is due now (issue 30).
                        self.dealer.not_taken([e for _, e in steps[i:]])
                        break
                    self._acked = False
                # Frozen events: the same event, stamped with the wall clock of the post.
                self.post(replace(event, ts=self._clock()))
                with self._cond:
                    while not self._acked and not self.stopping.is_set():
                        self._cond.wait()
                    expected = self._latest

