"""Motion-JPEG frames decoded to their luma only: the reader's fast path at 720p.

A Motion-JPEG frame is a whole JPEG image. OpenCV's capture decodes all three of its
components and converts them to BGR (3.3-4.8 ms at 1280x720 on one core here), and the
reader then throws the colour away again to get the gray pixels the decoders want. Asked for
the compressed frame instead (``CAP_PROP_FORMAT = -1`` on FFmpeg, ``CAP_PROP_CONVERT_RGB = 0``
on V4L2), the reader hands it to OpenCV's libjpeg-turbo with ``IMREAD_GRAYSCALE``, which
decodes the Y component alone: the chroma is entropy-decoded (it has to be, to find the next
block) but never transformed, upsampled or converted. JPEG's Y is the same weighted sum
(0.299 R + 0.587 G + 0.114 B) as OpenCV's BGR-to-gray, so the pixels are the gray the old
path computed, up to rounding (a few levels).

What was measured and not taken (docs/benchmarks.md, "Camera reader"): a lossless crop to the
region of interest before decoding (libjpeg-turbo's transform) costs more than it saves,
because the crop must entropy-decode the whole frame and re-encode the region; decoding only
the rows down to the region's bottom (a smaller height in the frame header) saves a quarter
but makes OpenCV's libjpeg print a warning on stderr for every frame.

Cameras often leave the Huffman tables out of their frames (the JPEG standard ones are
implied); libjpeg-turbo fills them in, which a test checks.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

SOI: Final = b"\xff\xd8"  # every JPEG image starts with this marker
MJPG: Final = int.from_bytes(b"MJPG", "little")  # the FOURCC OpenCV reports for Motion-JPEG


def is_mjpeg(fourcc: float) -> bool:
    """Whether a capture's ``CAP_PROP_FOURCC`` says Motion-JPEG."""
    try:
        return int(fourcc) == MJPG
    except (ValueError, OverflowError):  # NaN or infinite from a confused backend
        return False


def decode_luma(packet: NDArray[np.uint8]) -> NDArray[np.uint8] | None:
    """The gray (Y) pixels of one JPEG frame, or None when it is not a JPEG libjpeg can
    decode (a damaged frame: the caller skips it, as OpenCV's own capture does)."""
    flat = packet.reshape(-1)
    if flat.size < 4 or bytes(flat[:2]) != SOI:
        return None
    try:
        image = cv2.imdecode(flat, cv2.IMREAD_GRAYSCALE)
    except cv2.error:
        return None
    if image is None or image.ndim != 2 or image.size == 0:
        return None
    return np.asarray(image, dtype=np.uint8)
