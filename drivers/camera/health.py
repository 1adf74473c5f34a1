"""Is the camera still showing the table? Frozen, black and dropped frames, from the frames.

A camera that fails rarely stops sending: a stuck driver repeats its last buffer, a covered
lens or a dead sensor sends black, a starved USB bus drops frames. Each of these would let
cards pass unseen, so each becomes a reason (``DeviceLost``) instead of silence.

The checks look at a thumbnail (every 16th pixel of the whole frame, 80x45 at 1280x720) so
they cost well under a tenth of a millisecond: a frozen camera freezes all of it, and a black
image is black all over. They judge its luma (brightness, 0.299 R + 0.587 G + 0.114 B), so a
BGR frame from OpenCV and a Motion-JPEG frame of which only the gray pixels were decoded
(``jpeg.py``) are judged alike: the same frames give the same verdicts on either path. Luma is
as sound a witness as colour: a stuck driver repeats its buffer byte for byte, so every
component is frozen with the luma; a working sensor's noise is in every component, the luma
included; and "black" means dark, which is what luma measures (a deep blue of B 60, G and R 0
averages 20 over its three channels but has a luma of 7: dark, and no code reads in it).
Timestamps are the frame's own (a file's frame time, or the clock for a live camera), so a
replay judges a recording exactly as the live reader did.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

THUMB_STEP = 16


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one frame says about the camera: ``problem`` is a reason to report (None when
    fine); ``usable`` says whether the frame is worth decoding."""

    problem: str | None
    usable: bool


GOOD = Verdict(None, True)


def thumbnail(frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The luma of every ``THUMB_STEP``-th pixel of a gray, BGR or BGRA frame (2-D)."""
    thumb = frame[::THUMB_STEP, ::THUMB_STEP]
    if thumb.ndim == 2:
        return thumb
    if thumb.shape[2] == 1:
        return thumb[:, :, 0]
    code = cv2.COLOR_BGRA2GRAY if thumb.shape[2] == 4 else cv2.COLOR_BGR2GRAY
    return np.asarray(cv2.cvtColor(np.ascontiguousarray(thumb), code), dtype=np.uint8)


class HealthMonitor:
    """Judges each frame: ``check(ts, frame)``; call ``reset`` when the camera reopens."""

    def __init__(self, *, frozen_s: float = 2.0, black_s: float = 2.0,
                 black_level: float = 16.0, gap_s: float = 1.0) -> None:
        for key, value in (("frozen_s", frozen_s), ("black_s", black_s), ("gap_s", gap_s)):
            if not value > 0:
                raise ValueError(f"{key} must be a positive number of seconds, not {value}")
        if not 0 <= black_level <= 255:
            raise ValueError(f"black_level must be 0-255 (mean pixel value), not {black_level}")
        self.frozen_s = frozen_s
        self.black_s = black_s
        self.black_level = black_level
        self.gap_s = gap_s
        self.reset()

    def reset(self) -> None:
        self._last_ts: float | None = None
        self._last_thumb: NDArray[np.uint8] | None = None
        self._same_since: float | None = None  # ts of the first frame of an identical run
        self._black_since: float | None = None

    def check(self, ts: float, frame: NDArray[np.uint8]) -> Verdict:
        thumb = thumbnail(frame)
        last_ts, self._last_ts = self._last_ts, ts
        gap = None if last_ts is None else ts - last_ts

        if self._last_thumb is not None and np.array_equal(thumb, self._last_thumb):
            if self._same_since is None:
                self._same_since = last_ts if last_ts is not None else ts
        else:
            self._same_since = None
            self._last_thumb = thumb.copy()
        if float(thumb.mean()) < self.black_level:
            if self._black_since is None:
                self._black_since = ts
        else:
            self._black_since = None

        # Black first: a black image is usually identical too, and black says more.
        if self._black_since is not None and ts - self._black_since > self.black_s:
            return Verdict(f"image black: mean below {self.black_level:g} for "
                           f"{ts - self._black_since:.1f} s", False)
        if self._same_since is not None and ts - self._same_since > self.frozen_s:
            return Verdict(f"image frozen: identical frames for {ts - self._same_since:.1f} s",
                           False)
        if gap is not None and gap > self.gap_s:
            # The frame itself is fine; cards may have passed in the gap.
            return Verdict(f"frames dropped: no frame for {gap:.2f} s", True)
        return GOOD
