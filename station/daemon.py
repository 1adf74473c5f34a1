"""``station run``: the single-writer loop that owns the station.

Driver threads post ``(source, event)`` pairs to one queue; this loop takes them in order,
records each before applying it, shows and publishes the outputs, and tells every source what
is due now. SIGINT/SIGTERM put a stop marker in the same queue, so the loop finishes the event
in hand and closes files cleanly (systemd's stop, or Ctrl-C).
"""

from __future__ import annotations

import logging
import queue
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import IO, Any

from drivers.base import EventSource
from drivers.events import DeviceLost, InputEvent
from drivers.simulated import SimulatedDealer, SimulatedTable, random_shoes
from station.config import StationConfig
from station.display import ConsoleDisplay
from station.errors import ConfigError
from station.outputs import Announced, Output, Published
from station.recording import Recorder
from station.simulation import DUE
from station.sinks import ResultsWriter
from station.station import Station

log = logging.getLogger(__name__)

_STOP = object()
_ENDED = object()


class Daemon:
    def __init__(self, config: StationConfig, sources: list[EventSource],
                 display: ConsoleDisplay | None, results: ResultsWriter,
                 recording: IO[str] | None, *, session: str = "",
                 announcements: ResultsWriter | None = None) -> None:
        self.config = config
        self.station = Station(config.rules, config.paytable, session=session)
        self.sources = sources
        self.display = display
        self.results = results
        self.announcements = announcements
        self.recorder = (
            Recorder(recording, config.rules, config.paytable, flush_each=True, session=session)
            if recording else None
        )
        # SimpleQueue: its put() is safe to call from a signal handler, which a Queue's is not
        # (the handler could wait on the lock the interrupted get() holds).
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.events_applied = 0
        self.exit_code = 0
        self.stop_reason = "stop requested"
        self._ended: set[EventSource] = set()

    def post(self, source: EventSource, event: InputEvent) -> None:
        """Thread-safe: any driver thread may call it."""
        self._queue.put((source, event))

    def request_stop(self) -> None:
        self._queue.put(_STOP)

    def source_ended(self, source: EventSource, error: BaseException | None) -> None:
        """Thread-safe: a driver thread that ended by itself (``drivers.base.Ended``)."""
        self._queue.put((_ENDED, source, error))

    def _on_source_ended(self, source: EventSource, error: BaseException | None) -> bool:
        """Whether the loop must stop. A dead driver pauses the table (recorded, so a replay
        shows why) and stops the daemon with exit code 1, so systemd restarts it; a source
        that has simply played everything it had ends the run once all have."""
        if error is not None:
            reason = f"driver failed: {type(error).__name__}: {error}"[:200]
            self._apply(DeviceLost(source.name, reason, time.time()))
            self.exit_code = 1
            self.stop_reason = f"{source.name} {reason}; restart the station"
            return True
        self._ended.add(source)
        if len(self._ended) == len(self.sources):
            self.stop_reason = "the simulated table has nothing more to deal"
            return True
        return False

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Serve until a stop is requested (or ``until()`` is true after an event)."""
        if self.display is not None:
            self.display.show([self.station.prompt])
        for s in self.sources:
            s.start(self.post, self.source_ended)
        due = DUE[self.station.phase]
        for s in self.sources:
            s.station_changed(due)
        try:
            while True:
                item = self._queue.get()
                if item is _STOP:
                    break
                if item[0] is _ENDED:
                    if self._on_source_ended(item[1], item[2]):
                        break
                    continue
                source, event = item
                self._apply(event)
                due = DUE[self.station.phase]
                for s in self.sources:
                    s.station_changed(due)
                source.applied()
                if until is not None and until():
                    break
        finally:
            for s in self.sources:
                s.stop()
            self.results.close()
            if self.announcements is not None:
                self.announcements.close()

    def _apply(self, event: InputEvent) -> None:
        if self.recorder is not None:
            self.recorder.write(event)  # append first: a crash never loses an applied event
        outputs: list[Output] = self.station.apply(event)
        self.events_applied += 1
        for o in outputs:
            if isinstance(o, Published):
                self.results.write(o.record)
            elif isinstance(o, Announced) and self.announcements is not None:
                self.announcements.write(o.message)
        if self.display is not None and outputs:
            self.display.show(outputs)


def build_daemon(config: StationConfig) -> tuple[Daemon, IO[str] | None]:
    """Wire the configured drivers, display and sinks; returns the daemon and the open
    recording file (closed by the caller)."""
    sim = config.simulation
    seed = sim.seed if sim.seed is not None else int(time.time())
    dealer = SimulatedDealer(
        random_shoes(seed, sim.shoes, config.rules.decks),
        sim.faults,
        pace=sim.pace,
        supervisor=sim.supervisor,
        start_ts=time.time(),
    )
    sources: list[EventSource] = [SimulatedTable(dealer)]
    # Round records on stdout are for a program to read: the display then goes to stderr so
    # the two never mix on one stream.
    to_stdout = "-" in (config.results_path, config.announcements_path)
    display = (ConsoleDisplay(sys.stderr if to_stdout else None, stamp=True)
               if config.display_type == "console" else None)
    if (config.announcements_path not in (None, "-")
            and Path(config.announcements_path).resolve() == Path(config.results_path).resolve()):
        raise ConfigError(
            f"{config.path}: results.announcements_path: the same file as results.path; "
            "give announcements a file of their own, or null"
        )
    # A per-start tag in every shoe id: two starts in the same second never reuse a key.
    session = secrets.token_hex(6)  # 48 bits: two starts drawing the same tag is negligible
    results = _open_results(config, "path", config.results_path)
    announcements = None
    if config.announcements_path is not None:
        announcements = _open_results(config, "announcements_path", config.announcements_path)
    recording: IO[str] | None = None
    if config.recording_dir is not None:
        try:
            recording = _open_recording(Path(config.recording_dir), config.rules.table, session)
        except OSError as exc:
            results.close()
            if announcements is not None:
                announcements.close()
            raise ConfigError(
                f"{config.path}: recording.dir: cannot write a recording in "
                f"{config.recording_dir} ({exc.strerror}); make it writable by the station's "
                "user, or set it to null"
            ) from exc
    log.info("simulated table seed %d, session %s", seed, session)
    daemon = Daemon(config, sources, display, results, recording, session=session,
                    announcements=announcements)
    return daemon, recording


def _open_results(config: StationConfig, key: str, path: str) -> ResultsWriter:
    try:
        if path != "-":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        return ResultsWriter(path, flush_each=True, append=True)
    except OSError as exc:
        raise ConfigError(
            f"{config.path}: results.{key}: cannot append to {path} ({exc.strerror}); make it "
            "writable by the station's user, or use -"
        ) from exc


def _open_recording(folder: Path, table: str, session: str) -> IO[str]:
    """A new recording file; never overwrites one (mode 'x')."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return (folder / f"{table}-{stamp}-{session}.jsonl").open("x", encoding="utf-8")


def install_signal_handlers(daemon: Daemon) -> None:
    """SIGINT and SIGTERM ask the loop to stop after the event in hand."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        daemon.request_stop()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
