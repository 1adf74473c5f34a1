"""The published record of a finished or voided round (one JSON object per line).

This is the contract with the game server's developers and with ``station roads``: keys are
only ever added, never renamed. See docs/messages.md.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from station.cards import Card
from station.outcome import RoundOutcome

RESULT_SCHEMA_VERSION = 1


def complete_record(shoe: str, round_no: int, outcome: RoundOutcome,
                    dealer: str | None = None) -> dict[str, Any]:
    """The record of a round whose every card was checked against the tableau. ``dealer``:
    the id of the dealer signed in (station.dealers), None when nobody is."""
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


def void_record(
    shoe: str,
    round_no: int,
    *,
    player: tuple[Card, ...],
    banker: tuple[Card, ...],
    reason: str,
    actor: str,
    dealer: str | None = None,
) -> dict[str, Any]:
    """The record of a round a supervisor voided: every bet on it is refunded."""
    return {
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
        "dealer": dealer,
    }
