"""Open a camera source once, as ``station check-config`` does: nothing is recorded or kept.

A live camera or stream gets a few seconds to give its first frame; a file's first frame is
read at once. The decoder is made too, so a missing library is found before the table opens.
"""

from __future__ import annotations

import time

from drivers.camera.capture import open_capture, parse_source
from drivers.camera.decoders import make_decoder

FIRST_FRAME_TRIES = 3  # a live source may drop its first read after the open (each bounded)


def probe_source(source: str | int, decoder: str) -> str:
    """What the source gives, e.g. ``1280x720 frames at 30 fps, zxing ready``. ``OSError``
    when it cannot be opened or gives no frame; ``ValueError`` for a bad source;
    ``drivers.camera.CameraUnavailable`` (an ``ImportError``) when the decoder is missing."""
    make_decoder(decoder)
    capture = open_capture(parse_source(source), clock=time.time, start_ts=0.0)
    try:
        for _ in range(FIRST_FRAME_TRIES if capture.source.live else 1):
            got = capture.read()
            if got is not None:
                frame, _ = got
                height, width = frame.shape[:2]
                return f"{width}x{height} frames at {capture.fps:g} fps, {decoder} ready"
        raise OSError(f"{capture.source}: opened, but no frame came")
    finally:
        capture.close()
