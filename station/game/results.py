"""The published record of a finished or voided round (one JSON object per line).

This is the contract with the game server's developers and with ``station roads``: keys are
only ever added, never renamed. See docs/messages.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from operator import attrgetter
from typing import Any

from station.game.cards import Card
from station.game.outcome import RoundOutcome, ValuesKey, decide, values_cases

RESULT_SCHEMA_VERSION = 1


def complete_record(shoe: str, round_no: int, outcome: RoundOutcome,
                    dealer: str | None = None) -> dict[str, Any]:
    """The record of a round whose every card was checked against the tableau. ``dealer``:
    the id of the dealer signed in (station.table.dealers), None when nobody is."""
    return {
        "v": RESULT_SCHEMA_VERSION,
        "key": f"{shoe}:{round_no}",
        "shoe": shoe,
        "round": round_no,
        "status": "complete",
        "player": list(map(_CODE, outcome.player)),
        "banker": list(map(_CODE, outcome.banker)),
        "player_total": outcome.player_total,
        "banker_total": outcome.banker_total,
        # ``_value_``, the member's plain str: ``.value`` is a Python-level property, and
        # this runs on every round.
        "winner": outcome.winner._value_,
        "natural": outcome.natural,
        "player_natural": outcome.player_natural,
        "banker_natural": outcome.banker_natural,
        "player_pair": outcome.player_pair,
        "banker_pair": outcome.banker_pair,
        "perfect_pair": outcome.player_perfect_pair or outcome.banker_perfect_pair,
        "dealer": dealer,
    }


_CODE = attrgetter("code")


def round_record(shoe: str, round_no: int, player: Sequence[Card], banker: Sequence[Card],
                 key: ValuesKey, *, dealer: str | None = None) -> dict[str, Any]:
    """``complete_record`` of the round dealt as ``player`` and ``banker`` (by the tableau),
    whose ``values_key`` is ``key``, without building its ``RoundOutcome``: a copy of the
    record of its case of the values (totals, winner, naturals: they follow from the case),
    with the round's own facts written into their places (key order kept). A round's last
    card runs this; tests/bets/test_settlement_fast.py holds it to ``complete_record``."""
    case = case_records().get(key)
    if case is None:  # not a case the tableau deals (none is): the outcome's own record
        return complete_record(shoe, round_no, decide(tuple(player), tuple(banker)), dealer)
    record = case.copy()
    p0, p1, b0, b1 = player[0], player[1], banker[0], banker[1]
    p_pair = p0.rank == p1.rank
    b_pair = b0.rank == b1.rank
    record["key"] = f"{shoe}:{round_no}"
    record["shoe"] = shoe
    record["round"] = round_no
    record["player"] = list(map(_CODE, player))
    record["banker"] = list(map(_CODE, banker))
    record["player_pair"] = p_pair
    record["banker_pair"] = b_pair
    record["perfect_pair"] = (p_pair and p0.suit == p1.suit) or (b_pair and b0.suit == b1.suit)
    record["dealer"] = dealer
    return record


@cache
def case_records() -> dict[ValuesKey, dict[str, Any]]:
    """The record of each case of the values, its round's own facts still to be written.
    Built once per process; ``Dealing`` builds it when it is made, so no round pays for it."""
    return {key: complete_record("", 0, outcome) for key, outcome in values_cases().items()}


def void_record(
    shoe: str,
    round_no: int,
    *,
    player: tuple[Card, ...],
    banker: tuple[Card, ...],
    reason: str,
    actor: str,
    note: str | None = None,
    dealer: str | None = None,
) -> dict[str, Any]:
    """The record of a round a supervisor voided: every bet on it is refunded. ``note``:
    what the one who voided it wrote (an upstream command's ``reason``), as ``void_note``."""
    record: dict[str, Any] = {
        "v": RESULT_SCHEMA_VERSION,
        "key": f"{shoe}:{round_no}",
        "shoe": shoe,
        "round": round_no,
        "status": "void",
        "player": [c.code for c in player],
        "banker": [c.code for c in banker],
        "player_total": None,
        "banker_total": None,
        "winner": None,
        "natural": False,
        "player_natural": False,
        "banker_natural": False,
        "player_pair": False,
        "banker_pair": False,
        "perfect_pair": False,
        "void_reason": reason,
        "voided_by": actor,
    }
    shown = printable_note(note) if note is not None else None
    if shown is not None:  # only when given: a void without one keeps its bytes
        record["void_note"] = shown
    record["dealer"] = dealer
    return record


VOID_NOTE_MAX = 200  # characters: a sentence for the pit, not a report


def printable_note(note: str) -> str | None:
    """``note`` safe to show and log: every character that is not printable written as its
    escape (``\\x15``, ``\\n``) once outer white space is dropped, at most ``VOID_NOTE_MAX``
    characters (cut with ``...``); None when nothing is left."""
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in note.strip())
    if len(text) > VOID_NOTE_MAX:
        text = text[: VOID_NOTE_MAX - 3] + "..."
    return text or None
