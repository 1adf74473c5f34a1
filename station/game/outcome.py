"""The outcome of a finished round: winner, totals, naturals, pairs (RULES.md 1, 2, 5).

``RoundOutcome`` is what settlement, the roads and the published result all read, so every
derived fact about a round is computed once, here.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from functools import cache
from itertools import product
from typing import NamedTuple

from station.game.cards import ALL_CARDS, Card, hand_total
from station.game.rules import NATURALS, banker_draws, player_draws


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
    # (hand_total), as this runs on every round; the tuple built positionally, in one C call
    # (a named tuple's keyword ``__new__`` is Python code).
    p0, p1 = player[0], player[1]
    b0, b1 = banker[0], banker[1]
    p2 = (p0.value + p1.value) % 10
    b2 = (b0.value + b1.value) % 10
    pt = p2 if len(player) == 2 else hand_total(player)
    bt = b2 if len(banker) == 2 else hand_total(banker)
    p_pair = p0.rank == p1.rank
    b_pair = b0.rank == b1.rank
    p_nat = p2 in NATURALS
    b_nat = b2 in NATURALS
    return _new(RoundOutcome, (
        player, banker, pt, bt,
        _PLAYER if pt > bt else _BANKER if bt > pt else _TIE,
        p_nat or b_nat, p_nat, b_nat, p_pair, b_pair,
        p_pair and p0.suit == p1.suit, b_pair and b0.suit == b1.suit,
    ))


_new = tuple.__new__
_PLAYER, _BANKER, _TIE = Winner.PLAYER, Winner.BANKER, Winner.TIE


ValuesKey = tuple[int, int, int, int]  # player total, banker total, player cards, banker cards


def values_key(player: Sequence[Card], banker: Sequence[Card]) -> ValuesKey:
    """The case of the values a round ended with: what the totals, the winner and the
    naturals of a round dealt by the tableau follow from (a natural is two cards against two:
    the tableau draws no third card after one)."""
    pt = player[0].value + player[1].value
    bt = banker[0].value + banker[1].value
    if len(player) == 3:
        pt += player[2].value
    if len(banker) == 3:
        bt += banker[2].value
    return pt % 10, bt % 10, len(player), len(banker)


@cache
def values_cases() -> dict[ValuesKey, RoundOutcome]:
    """One round for each case of the values a round can end with, dealt by the tableau
    (RULES.md 2) from every pair of two-card totals and every third card: 205 cases
    (tests/bets/test_settlement_fast.py holds them to the exact analysis' own enumeration)."""
    spade = {c.value: c for c in ALL_CARDS if c.suit == "S"}  # a card of each value 0-9
    cases: dict[ValuesKey, RoundOutcome] = {}

    def deal(player: tuple[Card, ...], banker: tuple[Card, ...]) -> None:
        cases.setdefault(values_key(player, banker), decide(player, banker))

    for p2, b2 in product(range(10), repeat=2):
        player, banker = (spade[p2], spade[0]), (spade[b2], spade[0])
        if player_draws(p2, b2):
            for v in range(10):
                p3 = (*player, spade[v])
                if banker_draws(p2, b2, v):
                    for w in range(10):
                        deal(p3, (*banker, spade[w]))
                else:
                    deal(p3, banker)
        elif banker_draws(p2, b2, None):
            for w in range(10):
                deal(player, (*banker, spade[w]))
        else:
            deal(player, banker)
    return cases
