"""Turn result records (station/game/results.py) and B/P/T letters into ``Round`` values.

Pure: the caller reads the file and adds the file name and line number to a ``RecordError``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from station.game.limits import PAYOUT_MAX, short
from station.game.roads.model import Result, Round

MAIN_BETS: Final = frozenset({"player", "banker", "tie"})
"""Bets whose win is already the bead's colour, so they never become an icon."""

NO_ICON: Final = frozenset({"tiger_pair", "all_treasure"})
"""Side bets seed 003's icon table (图形 | 标示) does not list: they have no icon to show, so
the next-highest winning bet's icon is shown instead."""

_WINNERS: Final[dict[object, Result]] = {"banker": "banker", "player": "player", "tie": "tie"}
_LETTERS: Final[dict[str, Result]] = {"B": "banker", "P": "player", "T": "tie"}
# "0.95", "3.5", "19/20": at most 12 digits a side, no exponent.
_PAYS_TEXT: Final = re.compile(r"\s*\d{1,12}(\.\d{1,12})?(/\d{1,12})?\s*")


class RecordError(ValueError):
    """A record or a sequence letter the roads cannot use; the message says what is wrong."""


def round_from_record(record: Mapping[str, Any]) -> Round | None:
    """The ``Round`` of one result record, or ``None`` for a void round (the roads skip it).

    Raises ``RecordError`` naming the key at fault.
    """
    status = record.get("status")
    if status == "void":
        return None
    if status != "complete":
        raise RecordError(f"'status' is {short(status)}, expected 'complete' or 'void'")
    named = record.get("winner")
    # Checked as text first: a list or an object cannot be looked up (fuzz finding).
    winner = _WINNERS.get(named) if isinstance(named, str) else None
    if winner is None:
        raise RecordError(
            f"'winner' is {short(record.get('winner'))}, expected 'banker', 'player' or 'tie'"
        )
    pairs = []
    for key in ("banker_pair", "player_pair"):
        value = record.get(key)
        if not isinstance(value, bool):
            raise RecordError(f"{key!r} is {short(value)}, expected true or false")
        pairs.append(value)
    return Round(winner, pairs[0], pairs[1], _icon(record.get("bets")))


def _icon(bets: object) -> str | None:
    """The winning side bet with the highest payout (seed 003: one icon per cell).

    Equal payouts pick the alphabetically first key so the drawing does not depend on the
    order of keys in the record. ``pays`` may be a number or a decimal/fraction string
    ("19/20"), as exact payouts may be written.
    """
    if bets is None:
        return None
    if not isinstance(bets, Mapping):
        raise RecordError(f"'bets' is {short(bets)}, expected an object")
    best: tuple[Fraction, str] | None = None
    for key, bet in bets.items():
        if not isinstance(bet, Mapping):
            raise RecordError(f"bets[{short(key)}] is {short(bet)}, expected an object")
        outcome = bet.get("outcome")
        if outcome not in ("win", "push", "lose"):
            raise RecordError(
                f"bets[{short(key)}].outcome is {short(outcome)}, expected win/push/lose"
            )
        pays = _payout(key, bet.get("pays"))
        if outcome != "win" or key in MAIN_BETS or key in NO_ICON:
            continue
        if best is None or pays > best[0] or (pays == best[0] and key < best[1]):
            best = (pays, str(key))
    return None if best is None else best[1]


def _payout(key: object, pays: object) -> Fraction:
    """``pays`` as an exact number from 0 to ``PAYOUT_MAX``.

    A string is checked against a short decimal or fraction form before ``Fraction`` sees
    it: ``Fraction("1e999999999")`` builds a billion-digit integer and never returns.
    """
    try:
        if isinstance(pays, bool):
            raise ValueError
        if isinstance(pays, str):
            if _PAYS_TEXT.fullmatch(pays) is None:
                raise ValueError
            value = Fraction(pays)
        elif isinstance(pays, int | float):
            value = Fraction(pays)
        else:
            raise ValueError
    except (ValueError, ZeroDivisionError, OverflowError):
        raise RecordError(
            f"bets[{short(key)}].pays is {short(pays)}, expected a number"
        ) from None
    if not 0 <= value <= PAYOUT_MAX:
        raise RecordError(
            f"bets[{short(key)}].pays is {short(pays)}, expected a payout from 0 to "
            f"{PAYOUT_MAX}"
        )
    return value


def rounds_from_sequence(letters: str) -> list[Round]:
    """Rounds from ``B``/``P``/``T`` letters (any case; whitespace is ignored).

    Raises ``RecordError`` naming the 1-based position of the first other character.
    """
    rounds = []
    for position, char in enumerate(letters, start=1):
        if char.isspace():
            continue
        winner = _LETTERS.get(char.upper())
        if winner is None:
            raise RecordError(f"position {position}: {char!r} is not B, P or T")
        rounds.append(Round(winner))
    return rounds
