"""The Prometheus endpoint (``metrics.port``): counts and latencies of the running station.

Bound to 127.0.0.1 only: the figures are for a node exporter or an agent on the PC itself,
never the casino network. Each ``Metrics`` has its own registry, so two stations in one
process (tests) never share counters. Counters are updated on the station loop (the daemon's
``observer`` hook) and by the publisher thread (``MeasuredOutbox``); prometheus-client's
metrics are thread-safe, and the HTTP server reads them on its own thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from drivers.events import CardRead, ClockAlert, Command, InputEvent
from station import __version__
from station.journal.outbox import Outbox, OutboxRow
from station.live.clock import ClockWatch
from station.live.install_watch import MODIFIED, VERIFIED, InstallWatch
from station.table.actions import ARCHIVED_ACTION
from station.table.outputs import Output, Published
from station.table.pauses import REASON_KINDS, is_more_reason, reason_kind
from station.table.station import Station

log = logging.getLogger(__name__)

BIND = "127.0.0.1"
# Pause reasons hold card codes and sources; the label is the kind of reason, so a table
# that pauses all night cannot grow the series without bound (station.table.pauses has the kinds).
PAUSE_KINDS = REASON_KINDS
READER_ERROR_KINDS = ("unreadable", "device_lost", "noise")
# The clock check's states that are not alerts (station.table.station.CLOCK_STATES).
QUIET_CLOCK = ("clock_synchronised", "clock_unknown")
_LOOP_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                 0.5, 1.0, 2.5)
_READ_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_DELIVERY_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0, 120.0, 600.0)


pause_kind = reason_kind


class Metrics:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.registry = CollectorRegistry()
        self._station: Station | None = None
        self._clock = clock
        self._reasons: tuple[str, ...] = ()
        r = self.registry
        Gauge("station_info", "the running station", ["version"], registry=r).labels(
            __version__).set(1)
        self.rounds = Counter("station_rounds", "rounds published, by status",
                              ["status"], registry=r)
        self.cards = Counter("station_cards", "cards in the rounds published", registry=r)
        self.reads = Counter("station_card_reads", "card reads taken by the loop, by source",
                             ["source"], registry=r)
        self.pauses = Counter("station_pauses", "pause reasons raised, by kind of reason",
                              ["reason"], registry=r)
        self.reader_errors = Counter("station_reader_errors", "unreadable codes and readers "
                                     "lost", ["kind"], registry=r)
        self.read_latency = Histogram(
            "station_read_latency_seconds", "from the time a driver stamped a card read "
            "(the scanner's line, the decoded frame) to the loop applying it",
            buckets=_READ_BUCKETS, registry=r)
        self.loop_latency = Histogram(
            "station_loop_event_seconds", "the loop's time for one event: apply, journal "
            "(a durable commit) and let out", buckets=_LOOP_BUCKETS, registry=r)
        self.delivery_latency = Histogram(
            "station_upstream_delivery_seconds", "from the publisher first reading a message "
            "in the outbox to its delivery (broker acknowledgement or file fsync)",
            buckets=_DELIVERY_BUCKETS, registry=r)
        self.backlog = Gauge("station_upstream_backlog", "messages journaled and not yet "
                             "delivered upstream", registry=r)
        self._outbox: Outbox | None = None
        self.backlog.set_function(self._backlog)
        self.clock_synchronised = Gauge(
            "station_clock_synchronised", "the kernel's clock state at the last check: 1 "
            "synchronised, 0 not, -1 unknown or not checked (clock.check)", registry=r)
        self.clock_synchronised.set(-1)
        self.install_modified = Gauge(
            "station_install_modified", "the install check's last finding (station "
            "verify-install, at start and every 24 h): 1 files differ, 0 all match, -1 not "
            "checkable (an editable install) or not checked yet", registry=r)
        self.install_modified.set(-1)
        self.clock_alerts = Counter("station_clock_alerts", "clock alerts raised, by alert",
                                    ["alert"], registry=r)
        self.archived = Gauge(
            "station_journal_archived_seq", "the last record of each journal the archive "
            "acknowledged holding (an archived command the station took), by journal id; the "
            "station keeps the last 16 journals' marks", ["journal"], registry=r)
        # The evidence off the dealer PC (issue 33): what of the journal in use the archive
        # has not acknowledged holding, and since when (0 with nothing waiting).
        self.archive_backlog = Gauge(
            "station_archive_backlog_records", "records of the journal in use after the last "
            "one the archive acknowledged holding (its acknowledgements' own records "
            "included); the whole journal before any", registry=r)
        self.archive_backlog.set_function(lambda: self._archive_backlog()[0])
        self.archive_oldest = Gauge(
            "station_archive_backlog_oldest_seconds", "how long ago the oldest record the "
            "archive has not acknowledged was journaled; 0 when none waits", registry=r)
        self.archive_oldest.set_function(lambda: self._archive_backlog()[1])
        for alert in ("clock_unsynchronised", "clock_jump"):
            self.clock_alerts.labels(alert)
        for kind in READER_ERROR_KINDS:
            self.reader_errors.labels(kind)  # present at 0, so a rate() has a series
        for status in ("complete", "void"):
            self.rounds.labels(status)
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def attach(self, station: Station) -> None:
        """Count pauses of ``station`` from now on (those it was recovered with are old)."""
        self._station = station
        self._reasons = tuple(station.dealing.pause_reasons)
        self._show_archived()

    def _show_archived(self) -> None:
        if self._station is None:
            return
        self.archived.clear()
        for journal, mark in self._station.archive_marks.items():
            self.archived.labels(journal).set(mark.seq)

    def watch_install(self, watch: InstallWatch) -> None:
        """Show ``watch``'s last finding as station_install_modified."""
        states = {MODIFIED: 1.0, VERIFIED: 0.0}
        self.install_modified.set_function(lambda: states.get(watch.state, -1.0))

    def watch_clock(self, watch: ClockWatch) -> None:
        """Show ``watch``'s last finding as station_clock_synchronised."""
        def state() -> float:
            return -1.0 if watch.synchronised is None else float(watch.synchronised)

        self.clock_synchronised.set_function(state)

    # --- the daemon's observer (station loop) ---------------------------------------------
    def observe(self, event: InputEvent, outputs: list[Output], seconds: float) -> None:
        self.loop_latency.observe(seconds)
        if isinstance(event, ClockAlert) and event.alert not in QUIET_CLOCK:
            self.clock_alerts.labels(event.alert).inc()
        if isinstance(event, Command) and event.action == ARCHIVED_ACTION:
            self._show_archived()
        if isinstance(event, CardRead):
            self.reads.labels(event.source).inc()
            self.read_latency.observe(max(0.0, self._clock() - event.ts))
        for o in outputs:
            if isinstance(o, Published):
                rec = o.record
                self.rounds.labels(str(rec.get("status"))).inc()
                if rec.get("status") == "complete":
                    self.cards.inc(len(rec.get("player", ())) + len(rec.get("banker", ())))
        if self._station is None:
            return
        reasons = tuple(self._station.dealing.pause_reasons)
        for reason in reasons:
            # The count of reasons no longer shown (station.table.pauses) is not a reason.
            if reason not in self._reasons and not is_more_reason(reason):
                kind = pause_kind(reason)
                self.pauses.labels(kind).inc()
                if kind in READER_ERROR_KINDS:
                    self.reader_errors.labels(kind).inc()
        self._reasons = reasons

    # --- upstream -------------------------------------------------------------------------
    def measure(self, outbox: Outbox) -> Outbox:
        """``outbox`` as the publisher should see it: timed, and counted for the backlog."""
        self._outbox = outbox
        return MeasuredOutbox(outbox, self.delivery_latency.observe)

    def _backlog(self) -> float:
        if self._outbox is None:
            return 0.0
        try:
            return float(self._outbox.backlog())
        except Exception:  # noqa: BLE001 - a closed journal at stop: no figure, not a crash
            return float("nan")

    def _archive_backlog(self) -> tuple[float, float]:
        """(records not acknowledged by the archive, the oldest one's age in seconds), from
        the endpoint's thread: the journal's committed head and the station's marks."""
        journal, station = self._outbox, self._station
        head = getattr(journal, "head", None)
        wall_at = getattr(journal, "wall_at", None)
        if head is None or wall_at is None or station is None:
            return 0.0, 0.0
        try:
            journal_id, last, _ = head()
            mark = station.archive_marks.get(journal_id.hex())
            acked = mark.seq if mark is not None else 0
            if last <= acked:
                return 0.0, 0.0
            oldest = wall_at(acked + 1)
        except Exception:  # noqa: BLE001 - a closed journal at stop: no figure, not a crash
            return float("nan"), float("nan")
        age = 0.0 if oldest is None else max(0.0, self._clock() - oldest)
        return float(last - acked), age

    # --- the endpoint ---------------------------------------------------------------------
    def serve(self, port: int) -> int:
        """Start the endpoint on 127.0.0.1:``port`` (0: any free port); the port bound.
        Raises OSError (the port is taken)."""
        server, thread = start_http_server(port, addr=BIND, registry=self.registry)
        self._server, self._thread = server, thread
        bound: int = server.server_address[1]
        return bound

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None


class MeasuredOutbox:
    """An outbox that times each row from its first ``pending`` read to ``mark_delivered``.
    The publisher's thread calls it; the lock keeps the first-seen map consistent if a
    scrape of the backlog comes at the same time."""

    def __init__(self, outbox: Outbox, observe: Callable[[float], None]) -> None:
        self._outbox = outbox
        self._observe = observe
        self._first_seen: dict[int, float] = {}
        self._lock = threading.Lock()

    def pending(self, limit: int) -> Sequence[OutboxRow]:
        rows = self._outbox.pending(limit)
        now = time.monotonic()
        with self._lock:
            for row in rows:
                self._first_seen.setdefault(row.id, now)
        return rows

    def mark_delivered(self, ids: Sequence[int]) -> None:
        self._outbox.mark_delivered(ids)
        now = time.monotonic()
        with self._lock:
            for i in ids:
                seen = self._first_seen.pop(i, None)
                if seen is not None:
                    self._observe(now - seen)

    def backlog(self) -> int:
        return self._outbox.backlog()
