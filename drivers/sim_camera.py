"""A simulated camera at the lowest layer: real barcode images in real frames and video files.

zxing-cpp writes the codes (Code 128, Data Matrix, QR) as images; they are printed on a white
card that passes through the region of interest over several frames, on a felt-green table
with sensor noise, and written as a real Motion-JPEG AVI (``drivers.camera.capture`` says why
that codec). The real ``CameraReader`` then reads the file through OpenCV exactly as it reads a
recording, so the whole pipeline runs unchanged in tests.

Faults and degradations, all from a seed (the same seed gives the same bytes of every frame):
a frozen stretch (the same frame repeated), a black stretch (a covered lens: near-black noise),
and per-frame ``Degradation`` of the card (blur, rotation, perspective, noise, low contrast,
JPEG, small modules).

Only tests and benchmarks import this module; it needs the camera extra.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import zxingcpp
from numpy.typing import NDArray

Image = NDArray[np.uint8]
Roi = tuple[int, int, int, int]

FORMATS: Final = {"code128": zxingcpp.BarcodeFormat.Code128,
                  "datamatrix": zxingcpp.BarcodeFormat.DataMatrix,
                  "qr": zxingcpp.BarcodeFormat.QRCode}
FELT: Final = (40, 100, 45)  # BGR
CARD_MARGIN: Final = 12  # white card around the code's own quiet zone, pixels


@dataclass(frozen=True, slots=True)
class Degradation:
    """How the camera sees one card. ``perspective``: how far each corner moves, as a fraction
    of the card's size; ``contrast``: 1 full, 0.2 a washed-out grey; ``jpeg_quality``: None
    for none; ``module_px``: one bar or module in pixels (1 is a code too small to be sure)."""

    blur_sigma: float = 0.0
    rotation_deg: float = 0.0
    perspective: float = 0.0
    noise_sigma: float = 0.0
    contrast: float = 1.0
    jpeg_quality: int | None = None
    module_px: int = 3

    @staticmethod
    def realistic(rng: np.random.Generator) -> Degradation:
        """A fixed camera over the shoe's mouth, mounted and focused as docs/hardware.md asks
        (at least 3 pixels per module): small tilt, a little motion blur, sensor noise, a
        camera's own JPEG, uneven light."""
        return Degradation(
            blur_sigma=float(rng.uniform(0, 0.8)),
            rotation_deg=float(rng.uniform(-6, 6)),
            perspective=float(rng.uniform(0, 0.06)),
            noise_sigma=float(rng.uniform(0, 5)),
            contrast=float(rng.uniform(0.55, 1.0)),
            jpeg_quality=int(rng.integers(60, 96)) if rng.random() < 0.7 else None,
            module_px=int(rng.integers(3, 5)),
        )

    @staticmethod
    def harsh(rng: np.random.Generator) -> Degradation:
        """Far beyond a working camera: for the misread figure, where unread is fine."""
        return Degradation(
            blur_sigma=float(rng.uniform(0, 3.0)),
            rotation_deg=float(rng.uniform(-180, 180)),
            perspective=float(rng.uniform(0, 0.2)),
            noise_sigma=float(rng.uniform(0, 30)),
            contrast=float(rng.uniform(0.1, 1.0)),
            jpeg_quality=int(rng.integers(5, 96)) if rng.random() < 0.8 else None,
            module_px=int(rng.integers(1, 4)),
        )


def _u8(array: Any) -> Image:
    return np.asarray(array, dtype=np.uint8)


def render_code(payload: str, symbology: str, module_px: int) -> Image:
    """The code as zxing-cpp writes it (black on white, with its quiet zone), grayscale."""
    barcode = zxingcpp.create_barcode(payload, FORMATS[symbology])
    image = np.asarray(zxingcpp.write_barcode_to_image(barcode, scale=max(1, module_px)),
                       dtype=np.uint8)
    if symbology == "code128":
        # zxing writes a linear code one module tall per scale step; a printed edge code is
        # tall enough to read across.
        image = _u8(cv2.resize(image, (image.shape[1], max(image.shape[0], 24 * module_px)),
                           interpolation=cv2.INTER_NEAREST))
    return image


def card_image(payload: str, symbology: str, module_px: int) -> Image:
    code = render_code(payload, symbology, module_px)
    return _u8(cv2.copyMakeBorder(code, CARD_MARGIN, CARD_MARGIN, CARD_MARGIN, CARD_MARGIN,
                                  cv2.BORDER_CONSTANT, value=245))


def _warp(card: Image, d: Degradation, rng: np.random.Generator) -> tuple[Image, Image]:
    """The card turned and tilted: its pixels and a mask of where it is."""
    h, w = card.shape
    diag = math.ceil(math.hypot(w, h)) + 4
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    centre = np.array([w / 2, h / 2], np.float32)
    angle = math.radians(d.rotation_deg)
    turn = np.array([[math.cos(angle), -math.sin(angle)],
                     [math.sin(angle), math.cos(angle)]], np.float32)
    jitter = rng.uniform(-d.perspective, d.perspective, (4, 2)).astype(np.float32)
    dst = (src - centre + jitter * np.array([w, h], np.float32)) @ turn.T + diag / 2
    matrix = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    warped = cv2.warpPerspective(card, matrix, (diag, diag), flags=cv2.INTER_LINEAR,
                                 borderValue=0)
    mask = cv2.warpPerspective(np.full_like(card, 255), matrix, (diag, diag),
                               flags=cv2.INTER_LINEAR, borderValue=0)
    return _u8(warped), _u8(mask)


def _degrade(region: Image, d: Degradation, rng: np.random.Generator) -> Image:
    out: NDArray[np.float32] = region.astype(np.float32)
    if d.contrast != 1.0:
        out = 128 + (out - 128) * np.float32(d.contrast)
    if d.blur_sigma > 0:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), d.blur_sigma), dtype=np.float32)
    if d.noise_sigma > 0:
        out = out + rng.normal(0, d.noise_sigma, out.shape).astype(np.float32)
    result = np.clip(out, 0, 255).astype(np.uint8)
    if d.jpeg_quality is not None:
        ok, data = cv2.imencode(".jpg", result, [cv2.IMWRITE_JPEG_QUALITY, d.jpeg_quality])
        if ok:
            result = np.asarray(cv2.imdecode(data, cv2.IMREAD_UNCHANGED), dtype=np.uint8)
    return result


def place(frame: Image, card: Image, centre: tuple[int, int], d: Degradation,
          rng: np.random.Generator) -> None:
    """Draw ``card`` (grayscale) into the BGR ``frame`` around ``centre``, degraded."""
    if d.rotation_deg == 0 and d.perspective == 0:
        # Square to the camera: pasted as it is (the clean videos' case, and much faster).
        h, w = card.shape
        x0, y0 = centre[0] - w // 2, centre[1] - h // 2
        if x0 < 0 or y0 < 0 or x0 + w > frame.shape[1] or y0 + h > frame.shape[0]:
            raise ValueError(f"a {w}x{h} card does not fit the frame at {centre}")
        region = frame[y0:y0 + h, x0:x0 + w]
        region[:] = _degrade(card, d, rng)[:, :, None]
        return
    warped, mask = _warp(card, d, rng)
    size = warped.shape[0]
    x0, y0 = centre[0] - size // 2, centre[1] - size // 2
    fh, fw = frame.shape[:2]
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(fw, x0 + size), min(fh, y0 + size)
    if cx0 >= cx1 or cy0 >= cy1:
        return
    crop = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
    alpha = (mask[crop].astype(np.float32) / 255.0)[:, :, None]
    target = frame[cy0:cy1, cx0:cx1].astype(np.float32)
    blended = target * (1 - alpha) + warped[crop].astype(np.float32)[:, :, None] * alpha
    patch = _degrade(np.clip(blended, 0, 255).astype(np.uint8), d, rng)
    frame[cy0:cy1, cx0:cx1] = patch


def table(size: tuple[int, int], rng: np.random.Generator) -> Image:
    """An empty table: felt green with a fixed texture."""
    w, h = size
    base = np.empty((h, w, 3), np.uint8)
    base[:] = FELT
    texture = rng.integers(-6, 7, (h, w, 1), dtype=np.int16)
    return _u8(np.clip(base.astype(np.int16) + texture, 0, 255))


def sensor_noise(frame: Image, rng: np.random.Generator, amplitude: int = 2) -> Image:
    """Live-camera noise, so no two frames of a working camera are identical."""
    noise = rng.integers(-amplitude, amplitude + 1, (*frame.shape[:2], 1), dtype=np.int16)
    return _u8(np.clip(frame.astype(np.int16) + noise, 0, 255))


def default_roi(size: tuple[int, int]) -> Roi:
    w, h = size
    return (w // 4, h // 4, w // 2, h // 2)


@dataclass(frozen=True, slots=True)
class ShoeVideo:
    """A sequence of codes passing under the camera.

    Each code shows for ``frames_per_card`` frames, moving down through ``roi`` and whole
    inside it, with ``gap_frames`` empty frames after it (and ``lead_frames`` before the first).
    ``frozen``/``black``: (after how many codes, how many frames) of the same frame repeated or
    of a covered lens. ``degrade``: ``None`` for clean cards, ``"realistic"`` or ``"harsh"`` for
    a new seeded ``Degradation`` every frame; ``module_px`` is the clean cards' module size."""

    codes: Sequence[str]
    symbology: str = "code128"
    size: tuple[int, int] = (640, 480)
    fps: float = 30.0
    frames_per_card: int = 5
    gap_frames: int = 4
    lead_frames: int = 3
    roi: Roi | None = None
    frozen: tuple[int, int] | None = None
    black: tuple[int, int] | None = None
    degrade: str | None = None
    module_px: int = 3
    seed: int = 1

    @property
    def region(self) -> Roi:
        return self.roi if self.roi is not None else default_roi(self.size)


NOISE_BANK: Final = 7  # noisy versions of the empty table, used in turn


def frames(video: ShoeVideo) -> Iterator[Image]:
    """Every frame of ``video``, in order (BGR, ``video.size``)."""
    rng = np.random.default_rng(video.seed)
    empty = table(video.size, rng)
    # Sensor noise is drawn once per bank entry and used in turn: consecutive frames always
    # differ (as a working camera's do) and a long video costs no noise per frame.
    bank = [sensor_noise(empty, rng) for _ in range(NOISE_BANK)]
    x, y, w, h = video.region
    cards = {p: card_image(p, video.symbology, video.module_px) for p in set(video.codes)}
    for payload, card in cards.items():
        if card.shape[1] > w or card.shape[0] + 8 > h:
            raise ValueError(f"the card {payload!r} ({card.shape[1]}x{card.shape[0]} px at "
                             f"module_px {video.module_px}) does not fit the region of "
                             f"interest {w}x{h}: use a shorter code, smaller modules or a "
                             f"larger region")
    count = 0
    last = bank[0]

    def next_empty() -> Image:
        nonlocal count
        count += 1
        return bank[count % NOISE_BANK]

    def stretch_after(i: int) -> Iterator[Image]:
        if video.frozen is not None and video.frozen[0] == i:
            for _ in range(video.frozen[1]):
                yield last
        if video.black is not None and video.black[0] == i:
            for _ in range(video.black[1]):
                yield _u8(rng.integers(0, 7, (video.size[1], video.size[0], 3), dtype=np.uint8))

    for _ in range(video.lead_frames):
        last = next_empty()
        yield last
    yield from stretch_after(0)
    for i, payload in enumerate(video.codes, start=1):
        for step in range(video.frames_per_card):
            if video.degrade is None:
                d = Degradation(module_px=video.module_px)
            elif video.degrade == "realistic":
                d = Degradation.realistic(rng)
            else:
                d = Degradation.harsh(rng)
            shown = (cards[payload] if d.module_px == video.module_px
                     else card_image(payload, video.symbology, d.module_px))
            frame = next_empty().copy()
            travel = max(0, h - max(shown.shape) - 8)
            down = (travel * step) // max(1, video.frames_per_card - 1)
            place(frame, shown, (x + w // 2, y + 4 + max(shown.shape) // 2 + down), d, rng)
            last = frame
            yield last
        for _ in range(video.gap_frames):
            last = next_empty()
            yield last
        yield from stretch_after(i)


def write_video(path: Path, video: ShoeVideo) -> int:
    """Write ``video`` to ``path`` (.avi, Motion-JPEG); returns the number of frames."""
    writer = cv2.VideoWriter(str(path), cv2.CAP_FFMPEG, cv2.VideoWriter.fourcc(*"MJPG"),
                             video.fps, video.size)
    if not writer.isOpened():
        raise OSError(f"cannot write a Motion-JPEG video at {path}")
    n = 0
    try:
        for frame in frames(video):
            writer.write(frame)
            n += 1
    finally:
        writer.release()
    return n


def code_frame(payload: str | None, symbology: str, d: Degradation, size: tuple[int, int],
               rng: np.random.Generator) -> Image:
    """One frame of ``size`` (BGR) holding ``payload`` (None: an empty table) seen as ``d``
    says, for read-rate figures and property tests."""
    frame = sensor_noise(table(size, rng), rng)
    if payload is not None:
        card = card_image(payload, symbology, d.module_px)
        place(frame, card, (size[0] // 2, size[1] // 2), d, rng)
    else:
        frame = _degrade(frame, d, rng)
    return frame
