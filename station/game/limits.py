"""Bounds on every number and name read from a file, defined once (issue 7).

The config loader and the recording reader check table rules with these same functions, so a
recording can never hold rules the config would refuse. Pure: no I/O. Each ``*_problem``
function returns ``None`` for a good value, else what is wrong in words, ready to follow a
file and key; ``short`` is how every error message shows an offending value.
"""

from __future__ import annotations

import math
import re
import reprlib
from fractions import Fraction
from typing import Final

# RULES.md describes shoes of 1 to 8 decks; the exact analysis and the shoe counts are
# checked for those, and a larger number has only ever been a typo (1e9 exhausted memory).
DECKS_MIN: Final = 1
DECKS_MAX: Final = 8
# A bouncing scanner repeats a code within tens of milliseconds; a window of seconds would
# swallow a real second card of the same code dealt quickly (two decks of 8 hold 8 of each).
DEDUPE_MS_MAX: Final = 5000
# Pace and fault durations: one hour is already far beyond any person at a table.
SECONDS_MAX: Final = 3600.0
SEED_MAX: Final = 2**63 - 1
SHOES_MAX: Final = 1_000_000
# The highest payout of any published baccarat side bet is a few hundred to 1; 10,000 to 1
# leaves room for jackpots while a payout of 2**64 (a typo) stays impossible.
PAYOUT_MAX: Final = Fraction(10_000)
# A shoe of 8 decks holds 416 cards, so at most 104 rounds; results files are checked against
# a generous bound instead so that a future longer shoe never breaks ``roads``.
ROUND_MAX: Final = 10_000
# Inputs are small (the largest shipped paytable is a few KiB); a bigger file is a mistake,
# and a cap keeps a wrong path such as /dev/zero from filling memory.
MAX_FILE_BYTES: Final = 1 << 20
MAX_LINE_BYTES: Final = 1 << 20

TABLE_ID_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
TABLE_ID_FORM: Final = (
    "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit "
    "(it names files and round keys), e.g. 'baccarat-07'"
)

_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlevel = 3
SHORT_CHARS: Final = 60


def short(value: object) -> str:
    """``repr(value)`` of at most 60 characters, cut with an ellipsis: error messages never
    print a whole (possibly huge or deeply nested) value."""
    text = _REPR.repr(value)
    return text if len(text) <= SHORT_CHARS else text[: SHORT_CHARS - 1] + "…"


def clip(text: str, limit: int = SHORT_CHARS) -> str:
    """``text`` itself (not its repr) cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def whole_problem(value: object, low: int, high: int) -> str | None:
    """A whole number from ``low`` to ``high`` (not a bool, not 8.0)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        return f"expected a whole number >= {low}, got {short(value)}"
    if value > high:
        return f"expected a whole number <= {high}, got {short(value)}"
    return None


def seconds_problem(value: object) -> str | None:
    """A finite number of seconds from 0 to ``SECONDS_MAX`` (not .inf, not .nan)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or math.isnan(value)
        or value < 0
    ):
        return f"expected a number of seconds >= 0, got {short(value)}"
    if value > SECONDS_MAX:
        return f"expected a number of seconds <= {SECONDS_MAX:g}, got {short(value)}"
    return None


def decks_problem(value: object) -> str | None:
    return whole_problem(value, DECKS_MIN, DECKS_MAX)


def dedupe_ms_problem(value: object) -> str | None:
    return whole_problem(value, 0, DEDUPE_MS_MAX)


def table_id_problem(value: object) -> str | None:
    """A table id names recordings and round keys, so it must be a safe file name."""
    if not isinstance(value, str) or TABLE_ID_RE.fullmatch(value) is None:
        return f"{short(value)} is not a table id; use {TABLE_ID_FORM}"
    return None


def payout_problem(value: Fraction) -> str | None:
    """A positive "X to 1" payout of at most ``PAYOUT_MAX``."""
    if value <= 0:
        return "is not a positive payout"
    if value > PAYOUT_MAX:
        return f"is above the largest payout the station accepts ({PAYOUT_MAX} to 1)"
    return None


MODES: Final = ("standard", "squeeze", "vip")
BETTING: Final = ("dealer", "timer", "upstream")
SKIPS_MAX: Final = 100
NEW_SHOE_AFTER_MAX: Final = ROUND_MAX


def timer_seconds_problem(value: object) -> str | None:
    """A deadline: more than 0 and at most ``SECONDS_MAX`` seconds."""
    problem = seconds_problem(value)
    if problem is None and value == 0:
        return "expected a number of seconds above 0 (a deadline that is already past)"
    return problem


def mode_value_problem(key: str, value: object) -> str | None:
    """The bounds of one table-mode key (``TableRules``), shared by config and recordings."""
    if key == "mode":
        return None if isinstance(value, str) and value in MODES else (
            f"{short(value)} is not one of: {', '.join(MODES)}")
    if key == "betting":
        return None if isinstance(value, str) and value in BETTING else (
            f"{short(value)} is not one of: {', '.join(BETTING)}")
    if key == "max_skips":
        return whole_problem(value, 0, SKIPS_MAX)
    if key == "new_shoe_after":
        return whole_problem(value, 0, NEW_SHOE_AFTER_MAX)
    if key == "result_s":
        return seconds_problem(value)  # 0: betting opens as soon as the result is out
    return timer_seconds_problem(value)


# Shoe integrity (station.table.integrity). Under 20 cards, or a threshold under half of them, fresh
# shoes would alarm too often (the bound in docs/integrity.md); past 100 cards or 10,000 shoes
# the comparison stops being cheap for no gain.
REPEAT_CARDS_MIN: Final = 20
REPEAT_CARDS_MAX: Final = 100
REPEAT_HISTORY_MAX: Final = 10_000
_LONGEST_BURN: Final = 11  # a ten (or picture) shown, then ten burned


def repeat_cards_problem(value: object, decks: int) -> str | None:
    """The cards after the burn compared between shoes: a shoe of ``decks`` must hold them."""
    problem = whole_problem(value, REPEAT_CARDS_MIN, REPEAT_CARDS_MAX)
    if problem is None and isinstance(value, int) and value > decks * 52 - _LONGEST_BURN:
        return (f"{value} cards after the burn is more than a {decks}-deck shoe surely gives "
                f"({decks * 52 - _LONGEST_BURN}), so the alarm would never look")
    return problem


def repeat_threshold_problem(value: object, cards: int) -> str | None:
    """The score (of ``cards``) from which a shoe is a repeat: at least half of them."""
    return whole_problem(value, (cards + 1) // 2, cards)


def repeat_history_problem(value: object) -> str | None:
    return whole_problem(value, 1, REPEAT_HISTORY_MAX)


GUARD_MODES: Final = ("off", "observe", "close")  # station.game.betguard
GUARD_RTP_MIN: Final = 0.5
GUARD_RTP_MAX: Final = 2.0


def guard_value_problem(key: str, value: object) -> str | None:
    """The bounds of ``bet_guard`` and ``bet_guard_max_rtp`` (issue 25), shared by config and
    recordings. The limit is a return as a fraction (1.0 is 100%): one below 0.5 would close
    every bet of a table, one above 2 none."""
    if key == "bet_guard":
        return None if isinstance(value, str) and value in GUARD_MODES else (
            f"{short(value)} is not one of: {', '.join(GUARD_MODES)}")
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            GUARD_RTP_MIN <= value <= GUARD_RTP_MAX):
        return (f"{short(value)} is not a return from {GUARD_RTP_MIN} to {GUARD_RTP_MAX} "
                "(a fraction: 1.0 is 100%)")
    return None
