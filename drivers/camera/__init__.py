"""The camera card reader: frames from a camera, a video file or a stream, barcodes decoded in
a region of interest, one ``CardRead`` per card as it passes (``CameraReader``).

OpenCV and the decoders are an optional extra (``pip install 'dealer-station[camera]'``) and
are imported only here, when a camera is chosen: ``import drivers`` or a serial table never
loads them. Without the extra, importing this package raises ``CameraUnavailable`` (an
``ImportError``) saying what to install, so a config that names a camera fails at selection
with the fix rather than somewhere deep in a thread.
"""

from __future__ import annotations

from drivers.camera.errors import INSTALL_HINT, CameraUnavailable

try:
    import cv2  # checked here so every module below may import it plainly
    import numpy  # noqa: F401
except ImportError as exc:
    raise CameraUnavailable(f"the camera reader needs OpenCV and numpy ({exc}); "
                            f"{INSTALL_HINT}") from exc

# OpenCV logs its own "[ WARN:0@...] global cap.cpp ..." lines on stderr when, say, a file is
# not a video; the reader reports each such fault itself, with the fix, as DeviceLost. Errors
# only, then: what remains on stderr is OpenCV failing in a way the reader did not foresee.
cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)

from drivers.camera.reader import CameraReader  # noqa: E402

__all__ = ["INSTALL_HINT", "CameraReader", "CameraUnavailable"]
