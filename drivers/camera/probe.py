"""Open a camera source once, as ``station check-config`` does: nothing is recorded or kept.

The decoder is made first, so a missing library is found before the table opens. Then the
source is opened and its first frame read, within ``timeout_s``: a stream's open and reads
are bounded by FFmpeg's timeouts, but a V4L2 device can block inside OpenCV's ``read()``, so
the reading happens on a thread of its own that is given up on (and left to end with the
process) when it takes longer.
"""

from __future__ import annotations

import threading
import time

from drivers.camera.capture import open_capture, parse_source
from drivers.camera.decoders import make_decoder

FIRST_FRAME_TRIES = 3  # a live source may drop its first reads after the open
TIMEOUT_S = 15.0


def probe_source(source: str | int, decoder: str, timeout_s: float = TIMEOUT_S) -> str:
    """What the source gives, e.g. ``1280x720 frames at 30 fps, zxing ready``. ``OSError``
    when it cannot be opened or gives no frame in ``timeout_s``; ``ValueError`` for a bad
    source; ``drivers.camera.CameraUnavailable`` (an ``ImportError``) when the decoder's
    library is missing."""
    make_decoder(decoder)
    parsed = parse_source(source)
    said: list[str] = []
    failed: list[BaseException] = []

    def first_frame() -> None:
        try:
            capture = open_capture(parsed, clock=time.time, start_ts=0.0)
        except (OSError, ValueError) as exc:
            failed.append(exc)
            return
        try:
            for _ in range(FIRST_FRAME_TRIES if parsed.live else 1):
                got = capture.read()
                if got is not None:
                    height, width = got[0].shape[:2]
                    said.append(f"{width}x{height} frames at {capture.fps:g} fps, "
                                f"{decoder} ready")
                    return
            failed.append(OSError(f"{parsed}: opened, but no frame came"))
        finally:
            capture.close()

    worker = threading.Thread(target=first_frame, name="camera-probe", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        raise OSError(f"{parsed}: no frame in {timeout_s:g} s")
    if failed:
        raise failed[0]
    return said[0]
