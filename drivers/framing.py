"""An incremental frame parser for barcode scanners on a serial line: bytes in, frames out.

Pure: no I/O, no clock, no threads. Feed it whatever a ``read`` returned (a byte, half a
code, three codes and a half); it returns the frames completed by those bytes, in order, and
keeps the rest for the next call. A bad frame never raises: it becomes one ``FrameError``
carrying the raw bytes, so the table can pause and show what the scanner sent.

Framings (``FRAMINGS``):

- ``cr``: a CR ends a frame at once (no waiting for an LF that may never come). An LF right
  after a CR is dropped, so a scanner left on CR+LF still reads cleanly; any other LF is a
  control character inside the next frame (an error).
- ``lf``: an LF ends a frame; a CR just before it is dropped (CR+LF scanners read cleanly).
- ``crlf``: CR and LF each end a frame, and the empty frame between a CR and the LF that
  follows it is ignored. So CR+LF, a lone CR and a lone LF all end one code, and a lost CR or
  LF never glues two codes together. (LF then CR gives an empty frame: an error.)
- ``tab``: a TAB ends a frame (scanners set up as a keyboard wedge for spreadsheets).
- ``stx_etx``: a frame is STX (0x02) payload ETX (0x03). CR, LF and spaces between frames
  are ignored; other bytes between frames are noise, reported as one error when the next
  STX arrives. An STX inside a frame ends the unfinished frame as an error and starts anew.

Checks on each frame, in order: its length (over ``max_len`` bytes, counting any prefix and
suffix, the frame is reported once, as soon as it is too long, and everything up to the
next terminator is dropped: the parser resynchronises there), empty, valid UTF-8, no control
characters, then the prefix and suffix (when configured, a frame must carry them; they are
stripped), and empty again once they are stripped.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Final

FRAMINGS: Final = ("cr", "lf", "crlf", "tab", "stx_etx")
CR: Final = 0x0D
LF: Final = 0x0A
TAB: Final = 0x09
STX: Final = 0x02
ETX: Final = 0x03
_BETWEEN_FRAMES_OK: Final = frozenset(b"\r\n \t")

# FrameError.reason values
EMPTY: Final = "empty"
TOO_LONG: Final = "too_long"
NOT_UTF8: Final = "not_utf8"
CONTROL: Final = "control"
NO_PREFIX: Final = "no_prefix"
NO_SUFFIX: Final = "no_suffix"
UNFINISHED: Final = "unfinished"  # stx_etx: STX again before ETX
NOISE: Final = "noise"  # stx_etx: bytes outside STX...ETX


@dataclass(frozen=True, slots=True)
class Frame:
    """One good frame: ``payload`` is the text between the framing (prefix/suffix stripped)."""

    payload: str
    raw: bytes


@dataclass(frozen=True, slots=True)
class FrameError:
    """One bad frame or stretch of noise; ``raw`` is what arrived (at most ``max_len`` + 1
    bytes of an over-long frame)."""

    reason: str
    raw: bytes


Parsed = Frame | FrameError


def show_bytes(raw: bytes, limit: int = 64) -> str:
    """``raw`` as printable ASCII: other bytes and the backslash as ``\\xNN``, cut at
    ``limit`` bytes with ``...``. Safe to put in a log line, a display or JSON."""
    out = "".join(chr(b) if 0x20 <= b < 0x7F and b != 0x5C else f"\\x{b:02x}"
                  for b in raw[:limit])
    return out + ("..." if len(raw) > limit else "")


class FrameParser:
    """Incremental parser for one serial line; see the module docstring for the rules."""

    def __init__(self, framing: str = "cr", *, prefix: str = "", suffix: str = "",
                 max_len: int = 64) -> None:
        if framing not in FRAMINGS:
            raise ValueError(f"framing must be one of {', '.join(FRAMINGS)}, not {framing!r}")
        if max_len < 1:
            raise ValueError(f"max_len must be at least 1, not {max_len}")
        self.framing = framing
        self.prefix = prefix
        self.suffix = suffix
        self.max_len = max_len
        self._terminators = {"cr": b"\r", "lf": b"\n", "crlf": b"\r\n", "tab": b"\t",
                             "stx_etx": b"\x03"}[framing]
        self.reset()

    def reset(self) -> None:
        """Forget any partial frame (after the port was reopened: half a code is no code)."""
        self._buf = bytearray()
        self._discarding = False  # inside an over-long frame, waiting for its terminator
        self._after_cr = False  # the last byte ended a frame with CR
        self._in_frame = False  # stx_etx: between STX and ETX
        self._noise = bytearray()  # stx_etx: bytes seen outside a frame

    @property
    def pending(self) -> bytes:
        """Bytes of an unfinished frame (what a timeout would have to decide about)."""
        return bytes(self._buf)

    def feed(self, data: bytes) -> list[Parsed]:
        """Parse ``data`` (any split of the stream) and return the frames it completed."""
        out: list[Parsed] = []
        if self.framing == "stx_etx":
            for b in data:
                self._feed_stx_etx(b, out)
        else:
            for b in data:
                self._feed_line(b, out)
        return out

    # --- line framings ---------------------------------------------------------------------
    def _feed_line(self, b: int, out: list[Parsed]) -> None:
        after_cr, self._after_cr = self._after_cr, False
        if b == LF and after_cr and self.framing in ("cr", "crlf"):
            return  # the LF of a CR+LF pair: the CR already ended the frame
        if b in self._terminators:
            self._after_cr = b == CR
            if self._discarding:
                self._discarding = False  # resynchronised: the error was already reported
                return
            raw = bytes(self._buf)
            self._buf.clear()
            if self.framing == "lf" and raw.endswith(b"\r"):
                raw = raw[:-1]
            out.append(self._check(raw))
            return
        self._add(b, out)

    # --- STX ... ETX -----------------------------------------------------------------------
    def _feed_stx_etx(self, b: int, out: list[Parsed]) -> None:
        if b == STX:
            if self._noise:
                out.append(FrameError(NOISE, bytes(self._noise)))
                self._noise.clear()
            if self._in_frame and not self._discarding:
                out.append(FrameError(UNFINISHED, b"\x02" + bytes(self._buf)))
            self._buf.clear()
            self._in_frame = True
            self._discarding = False
            return
        if not self._in_frame:
            if b in _BETWEEN_FRAMES_OK:
                return
            self._noise.append(b)
            if len(self._noise) > self.max_len:  # a stream of noise must not stay silent
                out.append(FrameError(NOISE, bytes(self._noise)))
                self._noise.clear()
            return
        if b == ETX:
            self._in_frame = False
            if self._discarding:
                self._discarding = False
                return
            raw = bytes(self._buf)
            self._buf.clear()
            out.append(self._check(raw))
            return
        self._add(b, out)

    # --- shared ----------------------------------------------------------------------------
    def _add(self, b: int, out: list[Parsed]) -> None:
        if self._discarding:
            return
        self._buf.append(b)
        if len(self._buf) > self.max_len:
            out.append(FrameError(TOO_LONG, bytes(self._buf)))
            self._buf.clear()
            self._discarding = True

    def _check(self, raw: bytes) -> Parsed:
        return check_frame(raw, self.prefix, self.suffix)


def check_frame(raw: bytes, prefix: str = "", suffix: str = "") -> Parsed:
    """One whole frame's payload checked (the module docstring's checks after the length):
    every reader whose device frames its codes itself (a HID-POS report) uses the same."""
    if not raw:
        return FrameError(EMPTY, raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return FrameError(NOT_UTF8, raw)
    # Category C: control, format, surrogate, private use, unassigned. None is in a code.
    if any(unicodedata.category(ch).startswith("C") for ch in text):
        return FrameError(CONTROL, raw)
    if prefix:
        if not text.startswith(prefix):
            return FrameError(NO_PREFIX, raw)
        text = text[len(prefix):]
    if suffix:
        if not text.endswith(suffix):
            return FrameError(NO_SUFFIX, raw)
        text = text[:-len(suffix)]
    if not text:
        return FrameError(EMPTY, raw)
    return Frame(text, raw)
