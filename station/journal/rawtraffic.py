"""A live device's raw traffic, kept beside the recording (``recording.raw: true``).

The recording says what the station made of each input; when a scanner misbehaves, the
operations engineer also needs what it actually sent. Each chunk of bytes the serial driver
reads is one JSON line, exactly as it came (hex), with the time it was read::

    {"t": 1767225700.123456, "src": "scanner", "hex": "41530d"}

Written on the driver's thread, so it must never raise there: a write that fails (a full
disk) is logged once and the device goes on being read. Files are created, never overwritten.
The camera's raw traffic is its frames, which the camera driver writes as a video itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import orjson

from station.errors import StationError
from station.settings.textfile import bounded_lines

log = logging.getLogger(__name__)

def raw_path(recording: Path, device: str, suffix: str = ".raw.jsonl") -> Path:
    """The raw file of ``device`` beside a recording: ``<recording stem>.<device><suffix>``."""
    return recording.with_name(f"{recording.stem}.{device}{suffix}")


class RawTraffic:
    """Appends one device's chunks of bytes to a new file, one flushed JSON line each."""

    def __init__(self, stream: IO[bytes], path: Path, device: str) -> None:
        self.path = path
        self.device = device
        self._stream: IO[bytes] | None = stream
        self._lock = threading.Lock()
        self._failed = False

    @classmethod
    def create(cls, path: Path, device: str) -> RawTraffic:
        """A new file (mode "x": a raw file is evidence and is never overwritten)."""
        return cls(path.open("xb"), path, device)  # closed by close()

    def write(self, data: bytes, ts: float) -> None:
        line = orjson.dumps({"t": ts, "src": self.device, "hex": data.hex()}) + b"\n"
        with self._lock:
            if self._stream is None:
                return
            try:
                self._stream.write(line)
                self._stream.flush()
            except OSError as exc:
                if not self._failed:
                    self._failed = True
                    log.error("raw traffic of %s: cannot write %s (%s); the device is still "
                              "read, its raw bytes are not kept", self.device, self.path,
                              exc.strerror or exc)

    def close(self) -> None:
        with self._lock:
            stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.close()
            except OSError as exc:
                if self._failed:
                    return  # said already
                log.error("raw traffic of %s: closing %s failed (%s)", self.device, self.path,
                          exc.strerror or exc)


def read_raw(path: Path) -> Iterator[tuple[float, str, bytes]]:
    """The chunks of a raw file as ``(ts, device, bytes)``; a torn last line (the station
    stopped mid-write) is skipped. Raises StationError naming the line that is not one."""
    try:
        stream = path.open("rb")
    except OSError as exc:
        raise StationError(f"cannot read raw traffic {path}: {exc.strerror or exc}") from exc
    with stream:
        lines = list(bounded_lines(stream, lambda n: f"{path}: line {n}",
                                   "is this a .raw.jsonl file?", StationError))
    for n, (line_no, line) in enumerate(lines):
        torn = n == len(lines) - 1 and not line.endswith(b"\n")
        try:
            obj = orjson.loads(line)
            chunk = (float(obj["t"]), str(obj["src"]), bytes.fromhex(obj["hex"]))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            if torn:
                return
            raise StationError(f"{path}: line {line_no}: not a raw traffic line "
                               f"({type(exc).__name__}); is this a .raw.jsonl file?") from exc
        yield chunk
