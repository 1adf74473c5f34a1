"""The outcome of a finished round: winner, totals, naturals, pairs (RULES.md 1, 2, 5).

``RoundOutcome`` is what settlement, the roads and the published result all read, so every
derived fact about a round is computed once, here.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from station.cards import Card, hand_total
from station.rules import NATURALS


class Winner(StrEnum):
    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


class RoundOutcome(NamedTuple):
    """Cards in deal order per hand and everything a bet or road needs from them.

    A named tuple, immutable like the frozen dataclass it was, and built in one C call:
    one is built for every round (a frozen dataclass sets its twelve fields one by one)."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    player_total: int
    banker_total: int
    winner: Winner
    natural: bool
    player_natural: bool
    banker_natural: bool
    player_pair: bool
    banker_pair: bool
    player_perfect_pair: bool
    banker_perfect_pair: bool

    @property
    def perfect_pair(self) -> bool:
        """Either hand's first two cards are the same rank and suit."""
        return self.player_perfect_pair or self.banker_perfect_pair

    @property
    def cards_on_table(self) -> int:
        return len(self.player) + len(self.banker)


def decide(player: tuple[Card, ...], banker: tuple[Card, ...]) -> RoundOutcome:
    """Build the outcome of a complete round (the caller has checked the tableau)."""
    # Two or three cards a hand: the totals from the two-card totals, without a generator
    # (hand_total), as this runs on every round.
    p2 = (player[0].value + player[1].value) % 10
    b2 = (banker[0].value + banker[1].value) % 10
    pt = p2 if len(player) == 2 else hand_total(player)
    bt = b2 if len(banker) == 2 else hand_total(banker)
    winner = Winner.PLAYER if pt > bt else Winner.BANKER if bt > pt else Winner.TIE
    p_pair = player[0].rank == player[1].rank
    b_pair = banker[0].rank == banker[1].rank
    return RoundOutcome(
        player=player,
        banker=banker,
        player_total=pt,
        banker_total=bt,
        winner=winner,
        natural=p2 in NATURALS or b2 in NATURALS,
        player_natural=p2 in NATURALS,
        banker_natural=b2 in NATURALS,
        player_pair=p_pair,
        banker_pair=b_pair,
        player_perfect_pair=p_pair and player[0].suit == player[1].suit,
        banker_perfect_pair=b_pair and banker[0].suit == banker[1].suit,
    )
