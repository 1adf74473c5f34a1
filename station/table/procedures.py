"""Table procedures (issue 22, docs/rules.md "Procedures"): the dealer's own pause, the
supervisor's shuffle check, where the cut card was, the packs of a shoe. Pure: no I/O.

One definition of each vocabulary and bound, used by the station, the web API, ``station
ctl``, the upstream verifier, the config and the recording reader alike, so no two of them
can disagree on what a pause code or a pack code is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

# --- the dealer's pause (seed 000; docs/rules.md quotes it) ---------------------------------
# Each code with its English and Chinese words; ``other`` needs a note saying what.
PAUSE_WORDS: Final = {
    "card_dropped": ("card dropped", "掉牌"),
    "card_exposed": ("card exposed", "露牌"),
    "misdeal": ("misdeal", "派错牌"),
    "dispute": ("dispute", "争议"),
    "equipment": ("equipment problem", "设备故障"),
    "other": ("other", "其他"),
}
PAUSE_CODES: Final = tuple(PAUSE_WORDS)
NOTE_MAX: Final = 200  # characters; the note is repeated in the pause reason
# How the pause reason begins: words.py translates it, the view splits nothing out of it.
HELD_BY_DEALER: Final = "held by the dealer"


def pause_problem(code: object, note: object) -> str | None:
    """What is wrong with a pause's code and note, or None; the sentence says what to send."""
    if code is None:
        return f"a pause needs a reason code: one of {', '.join(PAUSE_CODES)}"
    if not isinstance(code, str) or code not in PAUSE_WORDS:
        shown = repr(code)[:40] if isinstance(code, str) else type(code).__name__
        return f"unknown reason {shown}: one of {', '.join(PAUSE_CODES)}"
    if note is not None and (not isinstance(note, str) or not 1 <= len(note) <= NOTE_MAX
                             or not note.isprintable()):
        return f"a note is 1-{NOTE_MAX} printable characters"
    if code == "other" and note is None:
        return "reason other needs a note saying what happened"
    return None


def pause_reason(code: str, note: str | None) -> str:
    """The pause reason as every message and view repeats it (station.table.pauses bounds it)."""
    words = PAUSE_WORDS[code][0]
    return f"{HELD_BY_DEALER}: {words}" + (f" ({note})" if note else "")


# --- the shuffle check (seed 003; docs/rules.md quotes it) ----------------------------------
SHUFFLE_CHECKS: Final = ("none", "supervisor")
SHUFFLE_METHODS: Final = ("manual", "machine")
# A pack or seal scanned during the check: the prefix (``reader.pack_prefix``), then its id.
PACK_ID = re.compile(r"[A-Za-z0-9._-]{1,32}")
PACK_ID_RULE: Final = "1-32 of A-Z a-z 0-9 . _ -"
PACKS_MAX: Final = 64  # a shoe of 8 decks has 8 packs; more is a scanner gone wrong
PACK_SHOWN: Final = 40  # characters of a card's pack id shown in a pause reason
PREFIX_MAX: Final = 16


def pack_of(code: str, prefix: str) -> str | None:
    """The pack id a pack code carries, None when ``code`` is not one (or not well formed)."""
    if not prefix or not code.startswith(prefix):
        return None
    ident = code[len(prefix):].strip()
    return ident if PACK_ID.fullmatch(ident) else None


# --- where the cut card was -----------------------------------------------------------------
PENETRATION_DIGITS: Final = 4


def penetration(cut_card_at: int, decks: int) -> float:
    """``cut_card_at / (decks x 52)``, rounded to 4 decimal places (Python's ``round`` of the
    float quotient: the same bytes on every machine and in every replay)."""
    return round(cut_card_at / (decks * 52), PENETRATION_DIGITS)


def band_text(band: tuple[float, float]) -> str:
    return f"{band[0]:g}-{band[1]:g}"


@dataclass(frozen=True, slots=True)
class Procedures:
    """What the dealing machine needs of the table's procedure settings."""

    shuffle_check: bool = False  # table.shuffle_check: supervisor
    method: str = "manual"  # table.shuffle_method
    penetration: tuple[float, float] | None = None  # table.penetration

    @property
    def on_records(self) -> bool:
        """Where the cut card was goes on the last round's record only where the table
        records its procedures: a standard table's records keep their bytes."""
        return self.shuffle_check or self.penetration is not None


# --- configuration (table.shuffle_check, table.shuffle_method, table.penetration,
# reader.pack_prefix): one check for the config and for a recording's header -----------------
PROCEDURE_KEYS: Final = ("shuffle_check", "shuffle_method", "penetration", "pack_prefix")


def procedure_value_problem(key: str, value: Any) -> str | None:
    if key == "shuffle_check":
        return None if value in SHUFFLE_CHECKS else (
            f"{value!r:.40} is not one of {', '.join(SHUFFLE_CHECKS)}")
    if key == "shuffle_method":
        return None if value in SHUFFLE_METHODS else (
            f"{value!r:.40} is not one of {', '.join(SHUFFLE_METHODS)}")
    if key == "pack_prefix":
        if not isinstance(value, str) or len(value) > PREFIX_MAX or not value.isascii() or (
                value and not value.isprintable()) or " " in value:
            return f"expected up to {PREFIX_MAX} printable ASCII characters, got {value!r:.40}"
        return None
    if key == "penetration":
        if value is None:
            return None
        ok = (isinstance(value, list | tuple) and len(value) == 2
              and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value))
        if not ok or not 0.0 <= value[0] <= value[1] <= 1.0:
            return f"expected [min, max] with 0 <= min <= max <= 1, got {value!r:.60}"
        return None
    raise KeyError(key)


def procedure_value(key: str, value: Any) -> Any:
    """The checked value as TableRules holds it (a band as a tuple of floats)."""
    if key == "penetration" and value is not None:
        return (float(value[0]), float(value[1]))
    return value
