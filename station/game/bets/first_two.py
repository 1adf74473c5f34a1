"""Bets on the first two cards of each hand: pairs, perfect pairs, tiger pair, 4-fortune
pairs and colours (seeds 000 and 003, RULES.md 1 and 5).

These kinds read only ranks and suits of the first four cards. The exact analysis relies on
that, and on treating every rank but 4 alike, spades like clubs: see
``station.game.analysis.first_two`` and the property test that pins it.

A pair is two cards of the same rank: K-K is a pair, K-Q is not, although both count 0.
Seed 000's "相同面值" is the face, not the baccarat points.
"""

from __future__ import annotations

from typing import Final

from station.game.bets.model import LOST, Bet, Settled, hand, won
from station.game.cards import Card
from station.game.outcome import RoundOutcome

FORTUNE_RANK: Final = "4"
DIAMONDS: Final = "D"


def _is_pair(cards: tuple[Card, ...]) -> bool:
    return cards[0].rank == cards[1].rank


def _is_perfect(cards: tuple[Card, ...]) -> bool:
    return cards[0].rank == cards[1].rank and cards[0].suit == cards[1].suit


def pair(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Player pair / Banker pair: that hand's first two cards are the same rank."""
    return won(bet.pays["win"]) if _is_pair(hand(outcome, bet.side)) else LOST


def either_pair(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Either hand's first two cards are a pair; paid once when both are (seed 000)."""
    if _is_pair(outcome.player) or _is_pair(outcome.banker):
        return won(bet.pays["win"])
    return LOST


def perfect_pair(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Either hand's first two cards are the same rank and suit. Seeds 000/003 pay once when
    both are; an optional ``both_hands`` payout covers tables that pay more for two."""
    hits = _is_perfect(outcome.player) + _is_perfect(outcome.banker)
    if hits == 0:
        return LOST
    if hits == 2 and "both_hands" in bet.pays:
        return won(bet.pays["both_hands"])
    return won(bet.pays["win"])


def tiger_pair(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 tiger pair. ``identical_pairs``: both hands are pairs and all four cards are
    the same rank and suit (the page: "庄闲是相同的同花对子"); ``both_pairs``: both hands are
    pairs otherwise; ``one_pair``: exactly one hand is a pair."""
    p, b = outcome.player[:2], outcome.banker[:2]
    pairs = _is_pair(p) + _is_pair(b)
    if pairs == 0:
        return LOST
    if pairs == 1:
        return won(bet.pays["one_pair"])
    if _is_perfect(p) and p[0] == b[0] and _is_perfect(b):
        return won(bet.pays["identical_pairs"])
    return won(bet.pays["both_pairs"])


def four_fortune_pair(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 4-fortune pair, highest case only: two 4s of diamonds; else a pair of 4s;
    else a diamond pair (both cards diamonds); else any other pair."""
    cards = hand(outcome, bet.side)[:2]
    if not _is_pair(cards):
        return LOST
    diamonds = cards[0].suit == DIAMONDS and cards[1].suit == DIAMONDS
    fours = cards[0].rank == FORTUNE_RANK
    if fours and diamonds:
        return won(bet.pays["pair_of_4_diamonds"])
    if fours:
        return won(bet.pays["pair_of_4s"])
    if diamonds:
        return won(bet.pays["diamond_pair"])
    return won(bet.pays["other_pair"])


def colour(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 super baccarat red/black: that hand's first two cards are both of
    ``colour``; a third card does not count."""
    cards = hand(outcome, bet.side)[:2]
    want_red = bet.colour == "red"
    if all(c.is_red == want_red for c in cards):
        return won(bet.pays["win"])
    return LOST
