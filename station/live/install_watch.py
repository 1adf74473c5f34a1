"""The daemon's install check: ``station verify-install`` at start and every 24 hours.

What it finds becomes an ``InstallModified`` input event, journaled like any other (so a
replay raises the same ``install_modified`` alert with no install to check) and counted in the
metrics. Hashing every installed file takes a noticeable moment, so the check runs on a
thread of its own, started once READY=1 is out, and only its finding goes through the loop's
queue.

An editable install or a checkout (a developer's, the test suite's) has no ``RECORD`` hashes
for its sources: it is *not checkable*. That is said once in the log and in the metrics,
never as an alert: every development station would otherwise raise one at every start.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from drivers.events import InstallModified
from station.errors import StationError

if TYPE_CHECKING:
    from station.live.install_check import Report

log = logging.getLogger(__name__)

CHECK_EVERY_S = 24 * 3600.0
FILES_NAMED = 50  # at most this many files named in one alert; the count says the rest

# ``state``, as the metrics show it.
VERIFIED = "verified"
MODIFIED = "modified"
NOT_CHECKABLE = "not_checkable"
NOT_CHECKED = "not_checked"


def finding(report: Report, ts: float) -> InstallModified | None:
    """The event of a report with differences, else None."""
    if not report.differences:
        return None
    files = tuple(d.line() for d in report.differences[:FILES_NAMED])
    more = len(report.differences) - len(files)
    detail = (f"{len(report.differences)} installed file(s) differ from the wheel's RECORD "
              f"({report.checked} checked): " + "; ".join(files[:3])
              + (" ..." if len(files) > 3 else "") + (f" and {more} more" if more else ""))
    return InstallModified(files, detail[:500], ts)


def _verify() -> Report:
    # Imported on the check's thread, after READY: importlib.metadata is a noticeable part
    # of a start-up that no first card needs (issue 35).
    from station.live.install_check import verify  # noqa: PLC0415

    return verify()


class InstallWatch:
    """Runs the check on its thread at ``start`` and every ``every_s``; ``post`` takes each
    finding to the loop (the daemon's thread-safe ``inject``)."""

    def __init__(self, check: Callable[[], Report] | None = None, *,
                 every_s: float = CHECK_EVERY_S,
                 wall: Callable[[], float] = time.time) -> None:
        self._check = check or _verify
        self._every = every_s
        self._wall = wall
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.first_done = threading.Event()
        self.state = NOT_CHECKED
        self.differences = 0
        self.checks = 0

    def start(self, post: Callable[[InstallModified], None]) -> None:
        """The check at start and then one every ``every_s``, all on the thread: the daemon
        calls it once READY=1 is out, so a station that restarts mid-round takes its next
        card without waiting for every installed file to be hashed (issue 35); the first
        finding comes through ``post`` like any later one. ``first_done`` is set once the
        first check is over."""
        self._thread = threading.Thread(target=self._run, args=(post,), name="install-check",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)

    def check_once(self) -> InstallModified | None:
        """One check; its finding, if any (the state and counts are updated)."""
        try:
            report = self._check()
        except StationError as exc:
            if self.state != NOT_CHECKABLE:
                log.info("install check: not checkable: %s", exc)
            self.state = NOT_CHECKABLE
            return None
        self.checks += 1
        self.differences = len(report.differences)
        self.state = MODIFIED if report.differences else VERIFIED
        if report.differences:
            log.error("install check: %d file(s) differ from the installed wheel",
                      len(report.differences))
        return finding(report, self._wall())

    def _run(self, post: Callable[[InstallModified], None]) -> None:
        try:
            event = self.check_once()
            if event is not None:
                post(event)
        finally:
            self.first_done.set()  # after the post: its finding is in the queue by then
        if self.state == NOT_CHECKABLE:
            return  # an editable install stays one: nothing to check later either
        while not self._stop.wait(self._every):
            event = self.check_once()
            if event is not None:
                post(event)
