"""One frame through the reader: region of interest, grayscale, decode, agreement.

The region of interest is cut from the frame first (a view, no copy), then converted to
grayscale, always before decoding: pyzbar given a colour image silently reads one channel, and
every decoder is faster on one byte per pixel. This is the part of the reader that
``benchmarks/bench_camera.py`` times per frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from drivers.camera.agreement import Agreement
from drivers.camera.decoders import Decoded, Decoder

Roi = tuple[int, int, int, int]
"""x, y, width, height in pixels of the whole frame, (0, 0) at the top left."""


def check_roi(roi: Roi | None) -> Roi | None:
    """``roi`` if it is four whole numbers with a positive size; ``ValueError`` otherwise."""
    if roi is None:
        return None
    if (not isinstance(roi, tuple) or len(roi) != 4
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in roi)):
        raise ValueError(f"roi must be four whole numbers (x, y, width, height), not {roi!r}")
    x, y, w, h = roi
    if x < 0 or y < 0 or w < 1 or h < 1:
        raise ValueError(f"roi {roi}: x and y must be 0 or more, width and height 1 or more")
    return roi


def roi_problem(frame: NDArray[np.uint8], roi: Roi | None) -> str | None:
    """Why ``roi`` cannot be cut from ``frame`` (None when it can)."""
    if roi is None:
        return None
    x, y, w, h = roi
    height, width = frame.shape[:2]
    if x + w > width or y + h > height:
        return (f"region of interest {x},{y} {w}x{h} does not fit the {width}x{height} "
                f"frame: fix reader.roi")
    return None


def to_gray(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A 2-D ``uint8`` image from a grayscale, BGR or BGRA one."""
    if image.ndim == 2:
        return image
    channels = image.shape[2]
    if channels == 1:
        return image[:, :, 0]
    code = cv2.COLOR_BGRA2GRAY if channels == 4 else cv2.COLOR_BGR2GRAY
    return np.asarray(cv2.cvtColor(image, code), dtype=np.uint8)


@dataclass(frozen=True, slots=True)
class FrameResult:
    reads: list[Decoded]  # every symbol decoded in this frame
    accepted: list[str]  # payloads agreed on in this frame (each reported once per pass)


class FramePipeline:
    """ROI -> grayscale -> decoder -> agreement, one frame at a time (one thread)."""

    def __init__(self, decoder: Decoder, *, roi: Roi | None = None, agree_frames: int = 2,
                 release_frames: int = 5) -> None:
        self.decoder = decoder
        self.roi = check_roi(roi)
        self.agreement = Agreement(agree_frames, release_frames)

    def region(self, frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
        if self.roi is None:
            return frame
        x, y, w, h = self.roi
        return frame[y:y + h, x:x + w]

    def process(self, frame: NDArray[np.uint8]) -> FrameResult:
        """Decode one frame (whose size fits the ROI: see ``roi_problem``)."""
        reads = self.decoder.decode(to_gray(self.region(frame)))
        return FrameResult(reads, self.agreement.update(r.payload for r in reads))
