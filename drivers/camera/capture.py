"""Where frames come from (OpenCV's ``VideoCapture``) and where raw frames are recorded.

A source is a device index (``0``), a device path (``/dev/video0``, best a stable
``/dev/v4l/by-id/...`` link), a stream URL (``rtsp://``, ``http://``) or a video file. The first
three are live: frames are stamped with the clock when they arrive, and a failure is a lost
camera to reopen. A file is stamped with its own frame time (the start time plus the frame's
position), so replaying it is deterministic and it is read as fast as decoding allows.

Recordings (``Recorder``) are Motion-JPEG in AVI: what USB cameras themselves send at 720p.
From a Motion-JPEG source read directly (``Capture.direct``) the recording holds the very
frames the source sent, byte for byte (OpenCV's FFmpeg writer takes them as they are, in
microseconds); from any other source OpenCV encodes the BGR frames. OpenCV's headless wheel
writes and reads it through its bundled FFmpeg (the lossless codecs it writes, FFV1, HuffYUV
and PNG, took 8-70 ms a 1280x720 frame here, too slow to replay at camera speed).
"""

from __future__ import annotations

import contextlib
import logging
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from drivers.camera.jpeg import decode_luma, is_mjpeg

log = logging.getLogger(__name__)

RECORD_SUFFIXES: Final = (".avi", ".mkv")
DEFAULT_FPS: Final = 30.0  # when a source does not say (some cameras and streams report 0)


@dataclass(frozen=True, slots=True)
class Source:
    """A parsed source: ``target`` is what OpenCV opens; ``live`` as above."""

    target: str | int
    kind: str  # index, device, url or file
    live: bool

    def __str__(self) -> str:
        return f"camera {self.target}" if self.kind == "index" else str(self.target)


def parse_source(source: str | int, live: bool | None = None) -> Source:
    """What ``source`` names. ``live`` forces a file to be read as a live camera (its frames
    stamped by the clock, its end a lost camera to reopen), as a test does to play a camera
    that comes and goes. ``ValueError`` for an empty or negative source."""
    if isinstance(source, bool) or not isinstance(source, int | str):
        raise ValueError(f"camera source must be a device index, path, URL or file, "
                         f"not {source!r}")
    # ASCII digits only: str.isdigit() also accepts '²', which int() refuses.
    if isinstance(source, str) and source.strip().isascii() and source.strip().isdigit():
        source = int(source.strip())
    if isinstance(source, int):
        if source < 0:
            raise ValueError(f"camera index must be 0 or more, not {source}")
        return Source(source, "index", True if live is None else live)
    if not source.strip():
        raise ValueError("camera source is empty: name a device index, path, URL or file")
    if "://" in source:
        return Source(source, "url", True if live is None else live)
    if source.startswith("/dev/"):
        return Source(source, "device", True if live is None else live)
    return Source(source, "file", False if live is None else live)


class Capture:
    """An open source: ``read()`` gives the next frame and its time, or None (failed/ended).

    ``direct``: the source sends Motion-JPEG and OpenCV hands over each compressed frame
    (``packet``, kept until the next read, for the recording); ``read()`` then gives the
    frame's gray pixels, decoded by ``jpeg.decode_luma``, instead of OpenCV's BGR frame. A
    compressed frame that does not decode is skipped (counted in ``skipped``), as OpenCV's own
    decoding skips one."""

    def __init__(self, cap: cv2.VideoCapture, source: Source, *, clock: Callable[[], float],
                 start_ts: float, direct: bool = False) -> None:
        self._cap = cap
        self.source = source
        self.clock = clock
        self.start_ts = start_ts
        self.direct = direct
        self.packet: NDArray[np.uint8] | None = None
        self.skipped = 0
        fps = float(cap.get(cv2.CAP_PROP_FPS))
        self.fps = fps if math.isfinite(fps) and 0 < fps <= 1000 else DEFAULT_FPS
        count = cap.get(cv2.CAP_PROP_FRAME_COUNT)
        self.frame_count = int(count) if math.isfinite(count) and count > 0 else None
        self.index = 0  # frames read so far (skipped ones included)
        self._last_ms = -1.0

    def read(self) -> tuple[NDArray[np.uint8], float] | None:
        while True:
            ok, frame = self._cap.read()
            if not ok or frame is None or frame.size == 0:
                return None
            if not self.direct:
                image = np.asarray(frame, dtype=np.uint8)
                break
            packet = np.asarray(frame, dtype=np.uint8)
            gray = decode_luma(packet)
            if gray is not None:
                self.packet, image = packet, gray
                break
            self.skipped += 1
            self.index += 1  # a frame of the source all the same: the file did not end here
            if self.skipped == 1:
                log.warning("%s: a Motion-JPEG frame that does not decode was skipped "
                            "(damaged in transfer?)", self.source)
        if self.source.live:
            ts = self.clock()
        else:
            # The container's time when it has one (a variable-rate file keeps its gaps);
            # the frame index at the nominal rate when it does not.
            ms = float(self._cap.get(cv2.CAP_PROP_POS_MSEC))
            if not (math.isfinite(ms) and ms > self._last_ms):
                ms = self.index * 1000.0 / self.fps
            self._last_ms = ms
            ts = self.start_ts + ms / 1000.0
        self.index += 1
        return image, ts

    def close(self) -> None:
        with contextlib.suppress(cv2.error):
            self._cap.release()


def _go_direct(cap: cv2.VideoCapture, source: Source) -> bool:
    """Ask an open capture for compressed Motion-JPEG frames; whether it agreed. Only a
    Motion-JPEG source is asked: any other codec keeps OpenCV's own decoding."""
    try:
        if not is_mjpeg(cap.get(cv2.CAP_PROP_FOURCC)):
            return False
        if source.kind in ("index", "device"):
            # V4L2 hands over the camera's buffer as it came when not asked to convert it.
            return bool(cap.set(cv2.CAP_PROP_CONVERT_RGB, 0))
        return bool(cap.set(cv2.CAP_PROP_FORMAT, -1))  # FFmpeg: the demuxed packet
    except cv2.error:
        return False


def open_capture(source: Source, *, clock: Callable[[], float], start_ts: float,
                 open_timeout_s: float = 5.0, read_timeout_s: float = 2.0,
                 direct: bool = True) -> Capture:
    """Open ``source``; ``OSError`` with the reason when it cannot be opened. The timeouts
    bound how long a dead stream can block the reader (FFmpeg's own default is 30 s).
    ``direct``: take a Motion-JPEG source's compressed frames and decode their gray pixels
    ourselves (``Capture``); False keeps OpenCV's BGR frames whatever the codec."""
    if source.kind == "file" and not Path(str(source.target)).is_file():
        raise OSError(f"no video file {source.target}")
    if source.kind in ("index", "device"):
        api = cv2.CAP_V4L2 if sys.platform.startswith("linux") else cv2.CAP_ANY
        params: list[int] = []
    else:
        api = cv2.CAP_FFMPEG
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(open_timeout_s * 1000),
                  cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(read_timeout_s * 1000)]
    try:
        cap = cv2.VideoCapture(source.target, api, params)
    except cv2.error as exc:
        raise OSError(f"cannot open {source}: {exc}") from exc
    if not cap.isOpened():
        cap.release()
        what = "not a video OpenCV can read" if source.kind == "file" else "cannot be opened"
        raise OSError(f"{source}: {what}")
    return Capture(cap, source, clock=clock, start_ts=start_ts,
                   direct=direct and _go_direct(cap, source))


def check_record_path(path: Path) -> Path:
    """``ValueError`` unless ``path`` is a new .avi or .mkv file (a recording never
    overwrites anything)."""
    if path.suffix.lower() not in RECORD_SUFFIXES:
        raise ValueError(f"record_to {path}: a camera recording must end in "
                         f"{' or '.join(RECORD_SUFFIXES)} (Motion-JPEG)")
    if path.exists():
        raise ValueError(f"record_to {path} exists; a recording never overwrites a file")
    return path


class Recorder:
    """Writes every captured frame, whole and before the ROI, to a Motion-JPEG video, so a
    replay of it runs the same pipeline on the same (or, re-encoded, almost the same)
    pixels. Opened at the first frame, when the size is known, in one of two modes for good:
    the source's own compressed frames (``packet`` given: copied as they are) or BGR frames
    (encoded). A failure to write is logged, never raised: losing the recording must not stop
    the table's reader."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._writer: cv2.VideoWriter | None = None
        self._size: tuple[int, int] | None = None
        self._raw = False
        self.failed = False
        self._warned = False
        self.frames = 0

    def write(self, frame: NDArray[np.uint8], fps: float,
              packet: NDArray[np.uint8] | None = None) -> None:
        """Record one frame: ``frame`` the decoded image (its size), ``packet`` the source's
        compressed frame when the capture reads Motion-JPEG directly."""
        if self.failed:
            return
        size = (frame.shape[1], frame.shape[0])
        raw = packet is not None
        if self._writer is None:
            params = [cv2.VIDEOWRITER_PROP_RAW_VIDEO, 1] if raw else []
            writer = cv2.VideoWriter(str(self.path), cv2.CAP_FFMPEG,
                                     cv2.VideoWriter.fourcc(*"MJPG"), fps, size, params)
            if not writer.isOpened():
                self.failed = True
                log.warning("camera recording %s cannot be written; not recording", self.path)
                return
            self._writer, self._size, self._raw = writer, size, raw
        if size != self._size or raw != self._raw or (not raw and frame.ndim != 3):
            # A camera that reopened at another size or format: one file holds one kind.
            if not self._warned:
                self._warned = True
                log.warning("camera recording %s: frame size or format changed (%dx%d); "
                            "frames of the new kind are not recorded", self.path, *size)
            return
        self._writer.write(frame if packet is None else packet.reshape(1, -1))
        self.frames += 1

    def close(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.release()
