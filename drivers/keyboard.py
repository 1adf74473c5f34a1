"""Key events of a keyboard-wedge scanner turned back into the bytes it meant to type.

Pure: no I/O, no clock. ``KeyDecoder.feed`` takes one kernel ``input_event``'s type, code
and value (``linux/input-event-codes.h``) and returns the bytes it typed, if any, for the
reader to hand to a ``FrameParser``, exactly as a serial scanner's bytes are: a scanner that
types a code and Enter is a serial scanner whose line ends in CR.

- A key types on its press (value 1). The kernel's own auto-repeat (value 2), which it makes
  when a scanner sends a key-up late (held past the repeat delay, 250 ms by default), types
  nothing: one press is one character. A release (value 0) types nothing.
- Shift (either) and caps lock as a keyboard does: caps lock (toggled by the scanner's own
  caps-lock presses, off at the start) swaps the case of letters only; shift picks the
  layout's second character. AltGr (right Alt) picks the third, where the layout has one.
- Enter and keypad Enter type CR, Tab types TAB: the terminators. Ctrl with a letter types
  its control character (Ctrl-M is CR, as on a terminal); a scanner set up to send one means
  it.
- The keypad's digits and operators type themselves (scanners in keypad mode). Left Alt held
  while keypad digits are pressed types, on its release, the character of that number (the
  "Alt+0065" mode many scanners offer to be independent of the layout): 1-255 as Latin-1,
  anything else is a bad byte.
- Any other key that types nothing in the layout (F1, Escape, a dead key, an unknown code)
  types ``UNMAPPED`` (SUB, 0x1A), a control character: the frame it lands in is a bad frame,
  reported, never a guessed card. Modifier and lock keys type nothing.
- Events of other types (EV_SYN, EV_MSC scan codes, EV_LED, EV_REP, a mouse's moves) type
  nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

# linux/input-event-codes.h (a kernel ABI: they never change; tests/drivers check them
# against python-evdev's ecodes).
EV_KEY: Final = 1
KEY_TAB: Final = 15
KEY_ENTER: Final = 28
KEY_KPENTER: Final = 96
KEY_LEFTSHIFT: Final = 42
KEY_RIGHTSHIFT: Final = 54
KEY_LEFTCTRL: Final = 29
KEY_RIGHTCTRL: Final = 97
KEY_LEFTALT: Final = 56
KEY_RIGHTALT: Final = 100
KEY_CAPSLOCK: Final = 58
KEY_NUMLOCK: Final = 69
KEY_SCROLLLOCK: Final = 70
KEY_LEFTMETA: Final = 125
KEY_RIGHTMETA: Final = 126
# The keypad (numlock on, as a scanner in keypad mode assumes): code -> what it types.
KEYPAD: Final[Mapping[int, str]] = {
    82: "0", 79: "1", 80: "2", 81: "3", 75: "4", 76: "5", 77: "6", 71: "7", 72: "8", 73: "9",
    83: ".", 74: "-", 78: "+", 55: "*", 98: "/",
}
KEYPAD_DIGITS: Final = frozenset(k for k, v in KEYPAD.items() if v.isdigit())
MODIFIERS: Final = frozenset({KEY_LEFTSHIFT, KEY_RIGHTSHIFT, KEY_LEFTCTRL, KEY_RIGHTCTRL,
                              KEY_LEFTALT, KEY_RIGHTALT, KEY_CAPSLOCK, KEY_NUMLOCK,
                              KEY_SCROLLLOCK, KEY_LEFTMETA, KEY_RIGHTMETA})
PRESS: Final = 1
RELEASE: Final = 0
CR: Final = b"\r"
TAB: Final = b"\t"
UNMAPPED: Final = b"\x1a"  # ASCII SUB, "substitute": a key with no character


@dataclass(frozen=True, slots=True)
class Layout:
    """A keyboard layout as data: key code -> (plain, shifted[, AltGr]) characters, each one
    character or "" for none. ``name`` is the config's ``reader.layout``."""

    name: str
    keys: Mapping[int, tuple[str, ...]] = field(default_factory=dict)

    def typed(self, code: int, shift: bool, caps: bool, altgr: bool) -> str:
        chars = self.keys.get(code)
        if not chars:
            return ""
        if altgr:
            return chars[2] if len(chars) > 2 else ""
        plain = chars[0]
        shifted = chars[1] if len(chars) > 1 else ""
        # Caps lock swaps the case of letters only: a key whose shifted character is its
        # plain one upper-cased (not a digit row whose shift gives a symbol).
        if caps and plain.isalpha() and shifted == plain.upper():
            shift = not shift
        return shifted if shift else plain


class KeyDecoder:
    """One scanner's keyboard state. Call from the reader's thread only."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.reset()

    def reset(self) -> None:
        """Forget the state (the device was reopened: its keys are all up again)."""
        self._down: set[int] = set()
        self._caps = False
        self._alt_digits = ""  # keypad digits typed while left Alt is held

    def feed(self, ev_type: int, code: int, value: int) -> bytes:
        """The bytes one event typed (b"" for most)."""
        if ev_type != EV_KEY:
            return b""
        if value != PRESS:
            if value == RELEASE:
                self._down.discard(code)
                if code == KEY_LEFTALT and self._alt_digits:
                    return self._alt_code()
            return b""  # auto-repeat (2), or a value no keyboard sends
        self._down.add(code)
        if code in (KEY_ENTER, KEY_KPENTER):
            return CR
        if code == KEY_TAB:
            return TAB
        if code == KEY_CAPSLOCK:
            self._caps = not self._caps
            return b""
        if code in MODIFIERS:
            return b""
        if KEY_LEFTALT in self._down and code in KEYPAD_DIGITS:
            if len(self._alt_digits) < 4:  # "Alt+0065": at most four digits
                self._alt_digits += KEYPAD[code]
                return b""
            self._alt_digits = "9999"  # too many digits: a bad byte on Alt's release
            return b""
        if code in KEYPAD:
            return KEYPAD[code].encode()
        shift = KEY_LEFTSHIFT in self._down or KEY_RIGHTSHIFT in self._down
        ch = self.layout.typed(code, shift, self._caps, KEY_RIGHTALT in self._down)
        if not ch:
            return UNMAPPED
        if (KEY_LEFTCTRL in self._down or KEY_RIGHTCTRL in self._down) and ch.isascii() \
                and ch.isalpha():
            return bytes([ord(ch.upper()) - 0x40])  # Ctrl-A is 0x01 ... Ctrl-M is CR
        return ch.encode("utf-8")

    def _alt_code(self) -> bytes:
        number, self._alt_digits = int(self._alt_digits), ""
        return bytes([number]) if 1 <= number <= 0x7F else (
            chr(number).encode("utf-8") if number <= 0xFF else UNMAPPED)
