"""``CameraReader``: the camera as a card source, on its own thread.

Each frame: judged for health (``health.py``), written to the recording when one is asked for,
then cut to the region of interest, made grayscale and decoded (``pipeline.py``). What is
posted:

- a payload decoded in ``agree_frames`` consecutive frames (``agreement.py``), once per pass
  of the card through the region of interest, classified by ``CodeFormat``: a card gives
  ``CardRead`` in the station's form; the cut-card code ``CutCardSeen``; a supervisor badge is
  logged; any other agreed payload one ``CardRead`` whose code is ``?unknown:shown-text`` (as
  the serial scanner's), so the station pauses and shows it. A payload seen in fewer frames is
  never posted: per frame it would be a stream of errors, and most are misreads;
- a frozen or black image, frames dropped, a region of interest that does not fit the frame,
  a live camera that fails or cannot be opened, or one that stalls inside ``read()`` for
  ``stall_s`` (``watchdog.py``, on its own thread): ``DeviceLost(name, reason)`` once, then
  ``DeviceRestored`` with the next good frame. A live camera is reopened with capped backoff;
- a video file read to its end: ``_run`` returns (the owner's ``ended(source, None)``); one
  that stops before the frame count its header gives, or cannot be opened, posts
  ``DeviceLost`` first.

``on_raw(payload, confidence, ts)`` (``station monitor --raw``) hears every decoded payload of
every frame, on the reader's thread.

A Motion-JPEG source (a file, a stream, a camera that sends MJPG) is read directly
(``direct_jpeg``, the default): its compressed frames are taken from OpenCV and only their
gray pixels decoded (``jpeg.py``), and the recording gets the frames as they came. Any other
source, or ``direct_jpeg=False``, is decoded by OpenCV into BGR as before. Both give the same
events (``tests/drivers/test_camera_paths.py``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from drivers.base import EventSource
from drivers.camera.capture import (
    Capture,
    Recorder,
    Source,
    check_record_path,
    open_capture,
    parse_source,
)
from drivers.camera.decoders import make_decoder
from drivers.camera.health import HealthMonitor
from drivers.camera.pipeline import FramePipeline, roi_problem
from drivers.camera.watchdog import StallWatchdog
from drivers.codes import CodeFormat, code_event
from drivers.events import DeviceLost, DeviceRestored
from drivers.reconnect import Backoff

log = logging.getLogger(__name__)


class CameraReader(EventSource):
    """Reads card codes from a camera, a stream or a video file."""

    def __init__(
        self,
        source: str | int,
        *,
        name: str = "camera",
        decoder: str = "zxing",
        roi: tuple[int, int, int, int] | None = None,
        agree_frames: int = 2,
        codes: CodeFormat | None = None,
        clock: Callable[[], float] = time.time,
        on_raw: Callable[[str, float, float], None] | None = None,
        record_to: Path | None = None,
        symbologies: tuple[str, ...] | None = None,
        release_frames: int = 5,
        live: bool | None = None,
        start_ts: float | None = None,
        frozen_s: float = 2.0,
        black_s: float = 2.0,
        black_level: float = 16.0,
        gap_s: float = 1.0,
        backoff: Backoff | None = None,
        stall_s: float = 2.0,
        direct_jpeg: bool = True,
    ) -> None:
        """Everything is checked here, on the caller's thread: a bad source, decoder, ROI,
        symbology or threshold raises ``ValueError``; a missing library
        ``drivers.camera.CameraUnavailable``. ``symbologies`` defaults to every one the
        decoder reads (``code128``, ``datamatrix``, ``qr``; pyzbar has no Data Matrix).
        ``release_frames``: frames a code must be absent before it can be reported again.
        ``live`` overrides whether the source is live (see ``capture.parse_source``).
        ``start_ts``: the time of a video file's first frame (default: the clock at open).
        ``stall_s``: a live source that gives no frame for this long is reported lost even
        while OpenCV's ``read()`` has not returned. ``direct_jpeg``: decode a Motion-JPEG
        source's frames ourselves, gray only (False: OpenCV's BGR frames, the old path)."""
        super().__init__()
        self.name = name
        self.source: Source = parse_source(source, live)
        self.pipeline = FramePipeline(make_decoder(decoder, symbologies), roi=roi,
                                      agree_frames=agree_frames, release_frames=release_frames)
        self.codes = codes if codes is not None else CodeFormat()
        self.clock = clock
        self.on_raw = on_raw
        self.record_to = None if record_to is None else check_record_path(Path(record_to))
        self.start_ts = start_ts
        self.health = HealthMonitor(frozen_s=frozen_s, black_s=black_s,
                                    black_level=black_level, gap_s=gap_s)
        self.backoff = backoff if backoff is not None else Backoff(0.05, 2.0)
        if not stall_s > 0:
            raise ValueError(f"stall_s must be a positive number of seconds, not {stall_s}")
        self.stall_s = stall_s
        self.direct_jpeg = direct_jpeg
        self._watchdog: StallWatchdog | None = None
        # The watchdog posts from its own thread: the lost/restored state and the log-once
        # set change under this lock, so DeviceLost and DeviceRestored always alternate.
        self._state = threading.Lock()
        self._logged: set[str] = set()  # kinds of fault logged at WARNING since frames flowed
        self._lost = False  # DeviceLost posted and not yet answered by DeviceRestored
        self._last_ts: float | None = None
        self._recorder: Recorder | None = None
        self.frames = 0  # frames read, all connections together (for tests and monitor)
        self.direct = False  # whether the open source's Motion-JPEG frames are read directly
        # Set while frames are flowing, cleared when the camera is lost (as SerialScanner's).
        self.connected = threading.Event()

    # --- thread ------------------------------------------------------------------------------
    def _run(self) -> None:
        self._recorder = None if self.record_to is None else Recorder(self.record_to)
        try:
            if self.source.live:
                self._run_live()
            else:
                self._run_file()
        finally:
            self.connected.clear()
            if self._recorder is not None:
                self._recorder.close()

    def _run_file(self) -> None:
        start = self.start_ts if self.start_ts is not None else self.clock()
        try:
            cap = open_capture(self.source, clock=self.clock, start_ts=start,
                               direct=self.direct_jpeg)
        except OSError as exc:
            self._lose(str(exc), start)
            return
        try:
            self._read(cap)
            count = cap.frame_count
            if not self.stopping.is_set() and count is not None and cap.index < count:
                self._lose(f"video ended at frame {cap.index} of {count} (file damaged?)",
                           self._last_ts if self._last_ts is not None else start)
        finally:
            cap.close()

    def _run_live(self) -> None:
        watchdog = StallWatchdog(self.stall_s, self._stalled, name=self.name)
        self._watchdog = watchdog
        watchdog.start()
        try:
            self._connect_and_read(watchdog)
        finally:
            watchdog.stop()

    def _connect_and_read(self, watchdog: StallWatchdog) -> None:
        while not self.stopping.is_set():
            watchdog.arm()
            try:
                cap = open_capture(self.source, clock=self.clock, start_ts=self.clock(),
                                   direct=self.direct_jpeg)
            except OSError as exc:
                watchdog.disarm()
                self._lose(str(exc), self.clock())
                self.stopping.wait(self.backoff.next())
                continue
            try:
                self.health.reset()
                self._read(cap)
            finally:
                watchdog.disarm()
                self.connected.clear()
                cap.close()
            if self.stopping.is_set():
                return
            self._lose(f"{self.source}: no frame (camera unplugged or stream ended?)",
                       self.clock())
            self.stopping.wait(self.backoff.next())

    def _stalled(self, seconds: float) -> None:
        """The watchdog's thread: no frame for ``seconds`` while the reader is in ``read()``
        (or still opening the source)."""
        if self.stopping.is_set():
            return
        self.connected.clear()
        self._lose(f"no frame for {seconds:.1f} s (camera or stream stalled)", self.clock(),
                   kind="stalled")

    def _read(self, cap: Capture) -> None:
        """Read and handle frames until stopped or a read fails (end of file, lost camera)."""
        self.direct = cap.direct
        while not self.stopping.is_set():
            got = cap.read()
            if got is None:
                return
            frame, ts = got
            if self._watchdog is not None:
                self._watchdog.frame()
            self._last_ts = ts
            self.frames += 1
            if not self.connected.is_set():
                self.connected.set()
                self.backoff.reset()
                with self._state:
                    self._logged.clear()
            if self._recorder is not None:
                self._recorder.write(frame, cap.fps, cap.packet if cap.direct else None)
            verdict = self.health.check(ts, frame)
            misfit = roi_problem(frame, self.pipeline.roi)
            problem = misfit or verdict.problem
            usable = misfit is None and verdict.usable
            if problem is not None:
                self._lose(problem, ts)
            else:
                self._restore(ts)
            if usable:
                self._decode(frame, ts)

    def _decode(self, frame: NDArray[np.uint8], ts: float) -> None:
        result = self.pipeline.process(frame)
        if self.on_raw is not None:
            for read in result.reads:
                self.on_raw(read.payload, read.confidence, ts)
        for payload in result.accepted:
            self._post_payload(payload, ts)

    def _post_payload(self, payload: str, ts: float) -> None:
        raw = payload.encode("utf-8", errors="backslashreplace")
        event = code_event(self.codes.classify(payload), raw, self.name, ts)
        if event is not None:
            self.post(event)

    def _lose(self, reason: str, ts: float, kind: str | None = None) -> None:
        """Report the camera lost once; each kind of reason is logged once (a frozen image
        gives a new "for N s" every frame: the kind is what comes before the first colon,
        unless given). Called by the reader's thread and the watchdog's."""
        kind = reason.split(":", 1)[0] if kind is None else kind
        with self._state:
            if kind in self._logged:
                log.debug("%s: %s", self.name, reason)
            else:
                self._logged.add(kind)
                log.warning("%s: %s", self.name, reason)
            if not self._lost:
                self._lost = True
                self.post(DeviceLost(self.name, reason, ts))

    def _restore(self, ts: float) -> None:
        """A good frame: if the camera was reported lost, it is back."""
        with self._state:
            if not self._lost:
                return
            log.info("%s: %s gives good frames again", self.name, self.source)
            self._lost = False
            self.post(DeviceRestored(self.name, ts))
