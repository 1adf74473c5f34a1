"""Barcode decoders behind one small protocol: a grayscale image in, payloads out.

Two implementations, chosen by name (``make_decoder``) and imported only when chosen:

- ``zxing`` (zxing-cpp, a self-contained wheel): the default. Measured on this project's
  synthetic card frames it decodes a region of interest 3-10x faster than ZBar and reads
  Data Matrix, which ZBar cannot (docs/benchmarks.md). zxing-cpp reports no confidence score:
  a symbol it returns has passed its checksum or error correction, so its confidence is 1.0.
- ``pyzbar`` (ZBar through ctypes; needs Debian's ``libzbar0``): Code 128 and QR only. Its
  confidence is ZBar's ``quality`` (for linear codes the number of scan lines that agreed;
  1 for QR).

Both are given a 2-D ``uint8`` image: pyzbar given a colour frame silently reads one channel,
so the pipeline converts to grayscale before any decoder sees a frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

import numpy as np
from numpy.typing import NDArray

from drivers.camera.errors import INSTALL_HINT, CameraUnavailable

SYMBOLOGIES: Final = ("code128", "datamatrix", "qr")
DECODERS: Final = ("zxing", "pyzbar")
PYZBAR_SYMBOLOGIES: Final = ("code128", "qr")


@dataclass(frozen=True, slots=True)
class Decoded:
    """One symbol found in an image: its text, how sure the decoder is, and its symbology."""

    payload: str
    confidence: float
    symbology: str


class Decoder(Protocol):
    name: str
    symbologies: tuple[str, ...]

    def decode(self, gray: NDArray[np.uint8]) -> list[Decoded]:
        """Every symbol of the configured symbologies in a 2-D grayscale image."""
        ...


def _check_symbologies(decoder: str, wanted: Sequence[str], able: Sequence[str]) -> None:
    if not wanted:
        raise ValueError("at least one symbology is needed")
    for s in wanted:
        if s not in SYMBOLOGIES:
            raise ValueError(f"unknown symbology {s!r}: choose from {', '.join(SYMBOLOGIES)}")
        if s not in able:
            raise ValueError(f"the {decoder} decoder cannot read {s}; use the zxing decoder")


def _payload(data: bytes) -> str:
    # Card codes are ASCII; anything else still reaches the code format (and is unknown there),
    # shown with \x escapes rather than dropped.
    return data.decode("utf-8", errors="backslashreplace")


class ZxingDecoder:
    """zxing-cpp. ``try_invert`` is off: card codes are dark on light, and inverting doubles
    the work for nothing. ``try_rotate`` (also search a linear code turned by 90 degrees) is
    off by default: a card passes a fixed camera the same way every time, so the camera is
    mounted with a Code 128's bars across the image rows (tilts of several degrees still
    read), and the search costs about three times the decode (0.5 against 2.2 ms on a
    640x360 region here). Data Matrix and QR are read at any angle either way."""

    name = "zxing"

    def __init__(self, symbologies: Sequence[str] = SYMBOLOGIES, *,
                 try_rotate: bool = False) -> None:
        self.try_rotate = try_rotate
        _check_symbologies(self.name, symbologies, SYMBOLOGIES)
        try:
            import zxingcpp  # noqa: PLC0415  (only when chosen)
        except ImportError as exc:
            raise CameraUnavailable(f"the zxing decoder needs zxing-cpp ({exc}); "
                                    f"{INSTALL_HINT}") from exc
        self._zx: Any = zxingcpp
        names = {"code128": zxingcpp.BarcodeFormat.Code128,
                 "datamatrix": zxingcpp.BarcodeFormat.DataMatrix,
                 "qr": zxingcpp.BarcodeFormat.QRCode}
        self._symbology_of = {names[s]: s for s in symbologies}
        self._formats = zxingcpp.BarcodeFormats([names[s] for s in symbologies])
        self.symbologies = tuple(symbologies)

    def decode(self, gray: NDArray[np.uint8]) -> list[Decoded]:
        found = self._zx.read_barcodes(gray, formats=self._formats, try_invert=False,
                                       try_rotate=self.try_rotate)
        out: list[Decoded] = []
        for barcode in found:
            symbology = self._symbology_of.get(barcode.format)
            if symbology is None or not barcode.valid:
                continue
            out.append(Decoded(_payload(barcode.bytes), 1.0, symbology))
        return out


class PyzbarDecoder:
    """pyzbar (ZBar). It builds a scanner per call (pyzbar's API), which is part of its cost."""

    name = "pyzbar"

    def __init__(self, symbologies: Sequence[str] = PYZBAR_SYMBOLOGIES) -> None:
        _check_symbologies(self.name, symbologies, PYZBAR_SYMBOLOGIES)
        try:
            # ZBar ships no type hints: only what is used here is typed, as Any.
            from pyzbar import pyzbar  # type: ignore[import-untyped]  # noqa: PLC0415
        except ImportError as exc:
            # pyzbar itself imports; it is the shared library that is usually missing.
            raise CameraUnavailable(
                f"the pyzbar decoder cannot load ({exc}): it needs Debian's libzbar0 "
                f"(apt-get install --no-install-recommends libzbar0) and pyzbar; "
                f"{INSTALL_HINT}") from exc
        self._zb: Any = pyzbar
        names = {"code128": pyzbar.ZBarSymbol.CODE128, "qr": pyzbar.ZBarSymbol.QRCODE}
        self._symbols = [names[s] for s in symbologies]
        self._symbology_of = {names[s].name: s for s in symbologies}
        self.symbologies = tuple(symbologies)

    def decode(self, gray: NDArray[np.uint8]) -> list[Decoded]:
        if gray.ndim != 2:
            raise ValueError("pyzbar must be given a grayscale image (it reads one channel "
                             "of a colour one)")
        height, width = gray.shape
        pixels = np.ascontiguousarray(gray).tobytes()
        found = self._zb.decode((pixels, width, height), symbols=self._symbols)
        out: list[Decoded] = []
        for symbol in found:
            symbology = self._symbology_of.get(symbol.type)
            if symbology is None:
                continue
            out.append(Decoded(_payload(symbol.data), float(symbol.quality), symbology))
        return out


def make_decoder(name: str, symbologies: Sequence[str] | None = None) -> Decoder:
    """The decoder called ``name`` (``zxing`` or ``pyzbar``) for ``symbologies`` (default:
    every one it can read). Raises ``ValueError`` for a bad name or a symbology the decoder
    cannot read, ``CameraUnavailable`` when its library is missing."""
    if name == "zxing":
        return ZxingDecoder(SYMBOLOGIES if symbologies is None else symbologies)
    if name == "pyzbar":
        return PyzbarDecoder(PYZBAR_SYMBOLOGIES if symbologies is None else symbologies)
    raise ValueError(f"unknown decoder {name!r}: choose from {', '.join(DECODERS)}")
