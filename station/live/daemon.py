"""``station run``: the single-writer loop that owns the station.

Driver threads post ``(source, event)`` pairs to one queue, and the upstream publisher posts
verified commands to it; this loop takes them in order. For each event it computes what the
event does (``Station.apply`` is pure), journals the event together with the upstream messages
it caused in one durable transaction, and only then lets anything leave: the recording, the
display, the results files, the publisher. A journal that cannot be written (a full disk)
holds the table: the display says so, nothing leaves, events that keep coming are held in
memory, and when the journal can be written again they are journaled in order behind a pause
that says what happened. SIGINT/SIGTERM put a stop marker in the same queue.
"""

from __future__ import annotations

import logging
import queue
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any, Protocol

from drivers.base import EventSource
from drivers.events import Command, DeviceLost, DeviceRestored, InputEvent, TimerExpired
from station.journal import Journal, JournalWriteError
from station.journal.aside import Holdings
from station.live.clock import ClockWatch
from station.live.install_watch import InstallWatch
from station.table.acks import ack_note, resend_note
from station.table.actions import ARCHIVED_ACTION, RESEND_ACTION, UPSTREAM_ACTIONS
from station.table.outputs import Announced, Output, Prompt, Published
from station.table.simulation import due_of
from station.table.station import REFUSED_OUTSIDE, Station
from station.upstream.outlet import Outlet, Resender
from station.upstream.sinks import AppendLog
from station.wire.commands import Accepted, Refused
from station.wire.feed import Feed, Payloads
from station.wire.observe import Snapshot
from station.wire.ratelimit import Tally

log = logging.getLogger(__name__)

# Upstream messages an event adds (a refused command), built when the event is journaled.
Extra = Callable[[], Payloads]

_STOP = object()
_ENDED = object()
_UPSTREAM = object()
JOURNAL = "journal"  # the source name of the journal's own pause
RETRY_S = 1.0  # how often a journal that failed is tried again
MAX_HELD = 10_000  # events held in memory while the journal cannot be written
# Commands the verifier refuses (unsigned, forged, stale, ...) come from whoever can publish on
# the broker's commands topic: the first few of each interval are journaled and answered one
# by one, the rest summed up in one ``command_refused`` (reason ``flood``) per interval, so a
# misconfigured script cannot grow the journal, the outbox or the loop's queue with its rate.
UPSTREAM_REFUSALS_FULL = 10
UPSTREAM_REFUSALS_INTERVAL_S = 10.0
WARM_SLICE_S = 0.05  # the heartbeat's turn while an event waits for the station's tables

class Display(Protocol):
    """What shows the dealer the station (``ConsoleDisplay``, ``station.web.WebDisplay``):
    called on the loop thread after each event is let out, with what it caused."""

    def show(self, outputs: list[Output]) -> None: ...


class EventCopy(Protocol):
    """Where each journaled event is copied (``station.journal.keptrecording.KeptRecording``):
    called
    after its commit, so the copy never holds an event the journal lacks. Must not raise."""

    def write(self, event: InputEvent) -> None: ...


@dataclass(slots=True)
class _Unjournaled:
    """The event whose journal write failed: applied in memory, nothing let out yet."""

    event: InputEvent
    outputs: list[Output]
    payloads: Payloads
    source: EventSource | None


class Daemon:
    def __init__(self, station: Station, sources: list[EventSource], journal: Journal,
                 feed: Feed, *, display: Display | None = None,
                 outlet: Outlet | None = None, results: AppendLog | None = None,
                 announcements: AppendLog | None = None,
                 recorder: EventCopy | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.station = station
        self.sources = sources
        self.journal = journal
        self.feed = feed
        self.display = display
        self.outlet = outlet
        self.results = results
        self.announcements = announcements
        self.recorder = recorder
        self._clock = clock
        # SimpleQueue: its put() is safe to call from a signal handler, which a Queue's is not
        # (the handler could wait on the lock the interrupted get() holds).
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.events_applied = 0
        self.exit_code = 0
        self.stop_reason = "stop requested"
        self._ended: set[EventSource] = set()
        # Journal outage: the failed event, whether its pause is journaled, and what came after.
        self._unjournaled: _Unjournaled | None = None
        self._outage = ""  # why the journal cannot be written; empty when it can
        self._held: deque[tuple[EventSource | None, InputEvent, Extra | None]] = deque()
        self._restore_queued = False
        self._quiet = False
        self._next_retry = 0.0
        self.outage_count = 0
        self._refusals = Tally(full=UPSTREAM_REFUSALS_FULL,
                               interval_s=UPSTREAM_REFUSALS_INTERVAL_S, max_sources=1)
        self._refusals_lock = threading.Lock()
        # Service hooks (station/live/service/), both called on this loop's thread only.
        # heartbeat: called before every wait; returns the longest wait it allows (None: no
        # bound), so systemd's watchdog hears from the loop itself, never from a side thread.
        self.heartbeat: Callable[[], float | None] | None = None
        # observer: every event let out, its outputs and the seconds it took (metrics, log).
        self.observer: Callable[[InputEvent, list[Output], float], None] | None = None
        # clock_watch: the clock check (station.live.clock.ClockWatch): its findings are
        # input events, applied and journaled like any other, so a replay raises them too.
        self.clock_watch: ClockWatch | None = None
        # The archive's acknowledgements are checked against the journals this station holds
        # (station.journal.aside), on this thread, when they arrive: made on first use.
        self._holdings: Holdings | None = None
        # install_watch: the install check (station.live.install_watch), at start and
        # every 24 h on its own thread; its findings come in through ``inject``.
        self.install_watch: InstallWatch | None = None
        # Start-up work that no card waits for (the first retention survey): run on a thread
        # once READY=1 is out (``_after_ready``).
        self.after_ready: list[Callable[[], None]] = []
        # Clear from ``run``'s start until the station's tables are built (``Station.prepare``
        # on the after-ready thread); set while no loop runs (a test's ``submit``).
        self._warm = threading.Event()
        self._warm.set()

    # --- thread-safe entry points ---------------------------------------------------------
    def post(self, source: EventSource, event: InputEvent) -> None:
        """Any driver thread may call it."""
        self._queue.put((source, event))

    def request_stop(self) -> None:
        self._queue.put(_STOP)

    def inject(self, event: InputEvent) -> None:
        """An input event of the station's own (the install check's), from any thread."""
        self._queue.put((None, event))

    def source_ended(self, source: EventSource, error: BaseException | None) -> None:
        """A driver thread that ended by itself (``drivers.base.Ended``)."""
        self._queue.put((_ENDED, source, error))

    def upstream_command(self, result: Accepted | Refused) -> None:
        """A verified (or refused) command from upstream, from the publisher's thread. A
        verifier's refusal past the interval's first few is counted here, on that thread,
        before it costs the loop anything (``flush_refusals`` sums them up)."""
        if isinstance(result, Refused):
            with self._refusals_lock:
                if not self._refusals.note("upstream", result.reason, time.monotonic()):
                    return
        self._queue.put((_UPSTREAM, result))

    def _refusals_pending(self) -> bool:
        with self._refusals_lock:
            return self._refusals.pending

    def flush_refusals(self, now_mono: float | None = None) -> None:
        """Journal and publish the summary of the refusals counted in an interval that is
        over (loop thread)."""
        with self._refusals_lock:
            due = self._refusals.due(time.monotonic() if now_mono is None else now_mono)
        for _source, summary in due:
            self._on_upstream(Refused("flood", f"upstream: {summary}"))

    # --- the loop -------------------------------------------------------------------------
    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Serve until a stop is requested (or ``until()`` is true after an event)."""
        if self.display is not None:
            self.display.show([self.station.prompt])
        if self.outlet is not None:
            self.outlet.start()
        self._warm.clear()
        for s in self.sources:
            s.start(self.post, self.source_ended)
        self._tell_sources()
        started = False
        ended_by_sources = False
        try:
            while True:
                wait = (max(0.0, self._next_retry - time.monotonic()) if self._outage
                        else None)
                if self.heartbeat is not None:
                    beat = self.heartbeat()
                    if beat is not None:
                        wait = beat if wait is None else min(wait, beat)
                if not started:
                    # READY=1 is out (the heartbeat's first call): only now what a first card
                    # does not need (docs/operations.md, "Start-up").
                    started = True
                    self._after_ready()
                if self._refusals_pending():
                    wait = 1.0 if wait is None else min(wait, 1.0)
                if self.clock_watch is not None:
                    check = self.clock_watch.wait()
                    wait = check if wait is None else min(wait, check)
                due = self._next_deadline()
                if due is not None:
                    until_due = max(0.0, due - self._clock())
                    wait = until_due if wait is None else min(wait, until_due)
                try:
                    item = self._queue.get(timeout=wait)
                except queue.Empty:
                    item = None
                # Tried again on time even while events keep arriving (a device that goes on
                # sending while the journal is down would otherwise starve the retry).
                if self._outage and time.monotonic() >= self._next_retry:
                    self._next_retry = time.monotonic() + RETRY_S
                    self._retry_journal()
                self._fire_timers()
                if self.clock_watch is not None:
                    for alert in self.clock_watch.check():
                        self.submit(alert)
                if self._refusals_pending():
                    self.flush_refusals()
                if item is None:
                    continue
                if item is _STOP:
                    break
                if item[0] is _ENDED:
                    if self._on_source_ended(item[1], item[2]):
                        ended_by_sources = self.exit_code == 0
                        break
                    continue
                if item[0] is _UPSTREAM:
                    self._on_upstream(item[1])
                else:
                    self.submit(item[1], item[0])
                if until is not None and until():
                    break
            if ended_by_sources:
                self._last_findings()
        finally:
            if self.install_watch is not None:
                self.install_watch.stop()
            for s in self.sources:
                s.stop()
            if self.outlet is not None:
                self.outlet.stop()
            for w in (self.results, self.announcements):
                if w is not None:
                    w.close()

    def _after_ready(self) -> None:
        """Once READY=1 is out: the install check on its thread (its first finding comes
        through ``inject`` like any later one), and on one more thread the tables a round
        builds (``Station.prepare``: settlement's and the bet guard's, a few tenths of a
        second), then the start-up work no card waits for (``self.after_ready``: the first
        retention survey)."""
        if self.install_watch is not None:
            self.install_watch.start(self.inject)
        work = [self.station.prepare, *self.after_ready]

        def warm() -> None:
            for n, job in enumerate(work):
                try:
                    job()
                except Exception:  # a table not built is built when it is needed
                    log.exception("start-up work after READY failed")
                finally:
                    if n == 0:
                        self._warm.set()

        threading.Thread(target=warm, name="after-ready", daemon=True).start()

    def _await_warm(self) -> None:
        """An event that comes while the tables are being built waits for them (never
        longer than building them here would take, and without the two threads building
        the same table at once), the heartbeat going on meanwhile so the watchdog hears
        the loop on time."""
        while not self._warm.wait(WARM_SLICE_S):
            if self.heartbeat is not None:
                self.heartbeat()

    def _last_findings(self, wait_s: float = 30.0) -> None:
        """A simulated table that has dealt all it had ends the run: the install check's
        first finding, still under way, is waited for and journaled, so a short run has it
        as a long one does. A stop (SIGTERM) never waits for it."""
        if self.install_watch is None:
            return
        self.install_watch.first_done.wait(wait_s)
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, tuple) and item[0] is None:
                self.submit(item[1])

    def submit(self, event: InputEvent, source: EventSource | None = None,
               extra: Extra | None = None) -> None:
        """Apply, journal, then let out one event (held instead while the journal cannot be
        written). ``extra``: upstream messages the caller adds (a refused command), built
        when the event is journaled: numbered then, they follow its own messages in ``seq``
        as in the outbox, even after waiting out a journal outage."""
        if self._outage:
            if len(self._held) >= MAX_HELD:
                log.error("journal outage: %d events held already; dropping %r", MAX_HELD,
                          event)
                return
            self._held.append((source, event, extra))
            return
        self._process(event, source, extra)

    def _process(self, event: InputEvent, source: EventSource | None,
                 extra: Extra | None) -> bool:
        if not self._warm.is_set():
            self._await_warm()
        started = time.monotonic()
        before = Snapshot.of(self.station)
        outputs = self.station.apply(event)
        payloads = self.feed.messages(before, Snapshot.of(self.station), event, outputs)
        if extra is not None:
            payloads.extend(extra())
        item = _Unjournaled(event, outputs, payloads, source)
        if not self._journal(item):
            return False
        self._let_out(item)
        if self.observer is not None:
            self.observer(event, outputs, time.monotonic() - started)
        return True

    def _journal(self, item: _Unjournaled) -> bool:
        try:
            self.journal.append(item.event, self._clock(), time.monotonic(), item.payloads)
        except JournalWriteError as exc:
            self._unjournaled = item
            if not self._outage:
                self._begin_outage(str(exc))
            return False
        return True

    def _begin_outage(self, reason: str) -> None:
        self.outage_count += 1
        self._outage = reason
        self._next_retry = time.monotonic() + RETRY_S
        log.error("journal: %s; the table is held until it can be written", reason)
        # Journaled first when the journal is back: the table paused from this moment.
        self._held.append((None, DeviceLost(JOURNAL, f"not writable: {reason}"[:300],
                                            self._clock()), None))
        if self.display is not None:
            self.display.show([Prompt(
                "paused", f"PAUSED: the journal cannot be written ({reason}) - do not deal; "
                "free space on the station's disk; call supervisor", paused=True)])

    def _retry_journal(self) -> None:
        """Try the journal again. Once it takes the failed event, journal the pause it
        caused, everything held since, and the journal's return, in that order."""
        # Drivers hear what is due only at the end: a simulated dealer told "card" between
        # two of these would draw on a prompt the table never showed.
        self._quiet = True
        try:
            item = self._unjournaled
            if item is not None:
                if not self._journal(item):
                    return
                self._unjournaled = None
                self._let_out(item)
            while True:
                if not self._held:
                    if self._restore_queued:
                        break
                    self._held.append((None, DeviceRestored(JOURNAL, self._clock()), None))
                    self._restore_queued = True
                source, event, extra = self._held.popleft()
                if not self._process(event, source, extra):
                    return  # it is the unjournaled one now; the rest wait behind it
            self._outage = ""
            self._restore_queued = False
            log.warning("journal: writable again; the table stays paused for the supervisor")
        finally:
            self._quiet = False
            if not self._outage:
                self._tell_sources()

    def _let_out(self, item: _Unjournaled) -> None:
        self.events_applied += 1
        if self.recorder is not None:
            self.recorder.write(item.event)
        for o in item.outputs:
            if isinstance(o, Published) and self.results is not None:
                self.results.write(o.record)
            elif isinstance(o, Announced) and self.announcements is not None:
                self.announcements.write(o.message)
        if self.outlet is not None and item.payloads:
            self.outlet.notify()
        if self.display is not None:
            # Even with no output: the web display's view (shoe counts) follows every event.
            self.display.show(item.outputs)
        if not self._quiet:
            self._tell_sources()
        if item.source is not None:
            item.source.applied()

    def _tell_sources(self) -> None:
        due = due_of(self.station)
        round_no = self.station.dealing.round_no
        for s in self.sources:
            s.round_changed(round_no)
            s.station_changed(due)

    # --- what else comes through the queue ------------------------------------------------
    def _next_deadline(self) -> float | None:
        if self._outage:
            return None  # the table is held; the pause that follows stops every countdown
        deadlines = self.station.deadlines
        return min(deadlines.values()) if deadlines else None

    def _fire_timers(self) -> None:
        """The station's clock: each deadline that has passed becomes a ``TimerExpired`` in
        the same order as every other input, journaled like one (docs/modes.md)."""
        while (due := self._next_deadline()) is not None:
            now = self._clock()
            if now < due:
                return
            name = min(self.station.deadlines, key=self.station.deadlines.__getitem__)
            self.submit(TimerExpired(name, max(now, due)))
            if self.station.deadlines.get(name) == due:
                return  # not taken (cannot happen): never spin on it

    def _on_source_ended(self, source: EventSource, error: BaseException | None) -> bool:
        """Whether the loop must stop. A dead driver pauses the table (journaled, so a replay
        shows why) and stops the daemon with exit code 1, so systemd restarts it; a source
        that has simply played everything it had ends the run once all have."""
        if error is not None:
            reason = f"driver failed: {type(error).__name__}: {error}"[:200]
            self.submit(DeviceLost(source.name, reason, self._clock()))
            self.exit_code = 1
            self.stop_reason = f"{source.name} {reason}; restart the station"
            return True
        self._ended.add(source)
        if len(self._ended) == len(self.sources):
            self.stop_reason = "the simulated table has nothing more to deal"
            return True
        return False

    def _resend(self, journal_id: str, seq: int) -> str | None:
        """The archive asks for a journal again from a record: the mirror sends it from
        there when this station holds it (checked now, on this disk, and journaled with the
        command as an ``archived`` is); else why not, for its ``command_refused``."""
        if not isinstance(self.outlet, Resender):
            return "this station's upstream does not mirror its journal (upstream.mirror)"
        if self._holdings is None:
            self._holdings = Holdings(self.journal)
        try:
            path, refusal = self._holdings.locate(journal_id, seq)
        except Exception as exc:  # noqa: BLE001 - a failed check must not stop the table
            return f"the station could not check it ({type(exc).__name__}: {exc})"[:300]
        if path is None:
            return (refusal or "not held")[:300]
        return self.outlet.resend(path, bytes.fromhex(journal_id), seq)

    def _on_upstream(self, result: Accepted | Refused) -> None:
        """A verified command goes to the station, which applies it or refuses it (its
        ``command_refused`` then comes from the station's outputs); a command refused by the
        verifier is journaled with its ``command_refused``. Either way every command is
        answered (docs/upstream.md)."""
        now = self._clock()
        if isinstance(result, Accepted):
            actor = f"{result.sent_by} [{result.id}]"
            # Its reason (at most 500 characters, the verifier's bound) is journaled with it;
            # a void puts it on the record as void_note (docs/messages.md).
            if result.action == "pause":  # its reason is the pause's code (docs/rules.md)
                self.submit(Command("pause", actor, now, result.note, result.reason))
                return
            if result.action == ARCHIVED_ACTION and result.claim is not None:
                # Whether the station holds that record is a fact of this disk: checked now
                # and journaled with the command, so a replay answers the same (station.table.acks).
                if self._holdings is None:
                    self._holdings = Holdings(self.journal)
                try:
                    refusal = self._holdings.refusal(*result.claim)
                except Exception as exc:  # noqa: BLE001 - a failed check must not stop the table
                    refusal = (f"the station could not check it "
                               f"({type(exc).__name__}: {exc})")[:300]
                self.submit(Command(ARCHIVED_ACTION, actor, now,
                                    ack_note(*result.claim, refusal)))
                return
            if result.action == RESEND_ACTION and result.claim is not None:
                journal_id, seq, _ = result.claim
                self.submit(Command(RESEND_ACTION, actor, now,
                                    resend_note(journal_id, seq, self._resend(journal_id, seq))))
                return
            self.submit(Command(UPSTREAM_ACTIONS[result.action], actor, now, result.reason))
            return
        actor = (f"upstream [{result.id or '?'}]: {result.action or '?'} refused "
                 f"({result.reason}: {result.detail})")[:300]
        self.submit(Command(REFUSED_OUTSIDE, actor, now),
                    extra=lambda: self.feed.refused(result, now))


def install_signal_handlers(daemon: Daemon) -> None:
    """SIGINT and SIGTERM ask the loop to stop after the event in hand."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        daemon.request_stop()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
