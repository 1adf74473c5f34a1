"""``station run``: the single-writer loop that owns the station.

Driver threads post ``(source, event)`` pairs to one queue; this loop takes them in order,
records each before applying it, shows and publishes the outputs, and tells every source what
is due now. SIGINT/SIGTERM put a stop marker in the same queue, so the loop finishes the event
in hand and closes files cleanly (systemd's stop, or Ctrl-C).
"""

from __future__ import annotations

import logging
import queue
import signal
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import IO, Any

from drivers.base import EventSource
from drivers.events import InputEvent
from drivers.simulated import SimulatedDealer, SimulatedTable, random_shoes
from station.config import StationConfig
from station.display import ConsoleDisplay
from station.outputs import Announced, Output, Published
from station.recording import Recorder
from station.simulation import DUE
from station.sinks import ResultsWriter
from station.station import Station

log = logging.getLogger(__name__)

_STOP = object()


class Daemon:
    def __init__(self, config: StationConfig, sources: list[EventSource],
                 display: ConsoleDisplay | None, results: ResultsWriter,
                 recording: IO[str] | None) -> None:
        self.config = config
        self.station = Station(config.rules, config.paytable)
        self.sources = sources
        self.display = display
        self.results = results
        self.recorder = (
            Recorder(recording, config.rules, config.paytable, flush_each=True)
            if recording else None
        )
        self._queue: queue.Queue[Any] = queue.Queue()
        self.events_applied = 0

    def post(self, source: EventSource, event: InputEvent) -> None:
        """Thread-safe: any driver thread may call it."""
        self._queue.put((source, event))

    def request_stop(self) -> None:
        self._queue.put(_STOP)

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Serve until a stop is requested (or ``until()`` is true after an event)."""
        if self.display is not None:
            self.display.show([self.station.prompt])
        for s in self.sources:
            s.start(self.post)
        due = DUE[self.station.phase]
        for s in self.sources:
            s.station_changed(due)
        try:
            while True:
                item = self._queue.get()
                if item is _STOP:
                    break
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

    def _apply(self, event: InputEvent) -> None:
        if self.recorder is not None:
            self.recorder.write(event)  # append first: a crash never loses an applied event
        outputs: list[Output] = self.station.apply(event)
        self.events_applied += 1
        for o in outputs:
            if isinstance(o, Published):
                self.results.write(o.record)
            elif isinstance(o, Announced):
                log.debug("announce %s", o.message)
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
    display = ConsoleDisplay(stamp=True) if config.display_type == "console" else None
    if config.results_path != "-":
        Path(config.results_path).parent.mkdir(parents=True, exist_ok=True)
    results = ResultsWriter(config.results_path, flush_each=True, append=True)
    recording: IO[str] | None = None
    if config.recording_dir is not None:
        folder = Path(config.recording_dir)
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        recording = (folder / f"{config.rules.table}-{stamp}.jsonl").open("w", encoding="utf-8")
    log.info("simulated table seed %d", seed)
    return Daemon(config, sources, display, results, recording), recording


def install_signal_handlers(daemon: Daemon) -> None:
    """SIGINT and SIGTERM ask the loop to stop after the event in hand."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        daemon.request_stop()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
