"""Bets on final totals and card counts (seed 000 lucky 6 and most of seed 003).

Card-count payout names: ``two_cards`` / ``three_cards`` count the cards of the hand the bet
is about; ``four_cards`` / ``five_cards`` / ``six_cards`` count all cards on the table.
"""

from __future__ import annotations

from typing import Final

from station.game.bets.model import LOST, Bet, Settled, hand, side_won, total, won
from station.game.outcome import RoundOutcome, Winner

HAND_CARDS: Final = {2: "two_cards", 3: "three_cards"}
TABLE_CARDS: Final = {4: "four_cards", 5: "five_cards", 6: "six_cards"}


def _winning_side(bet: Bet, outcome: RoundOutcome) -> str | None:
    if outcome.winner is Winner.TIE:
        return None
    if bet.side == "either" or side_won(outcome, bet.side):
        return outcome.winner.value
    return None


def wins_with(bet: Bet, outcome: RoundOutcome) -> Settled:
    """The side (or ``either`` side) wins with ``total``; the payout depends on how many
    cards the winning hand holds, and a count missing from ``pays`` loses.

    Lucky 6 / tiger (banker, 6), small/big tiger, 4-fortune, buffalo, tiger-buffalo
    (either, 6), Wu Dalang (player, 1), lucky 7, golden 8, small/big dragon (seeds 000, 003).
    """
    winner = _winning_side(bet, outcome)
    if winner is None or total(outcome, winner) != bet.total:
        return LOST
    key = HAND_CARDS[len(hand(outcome, winner))]
    return won(bet.pays[key]) if key in bet.pays else LOST


def tie_at(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 tiger tie: a tie at ``total`` (6), any number of cards."""
    if outcome.winner is Winner.TIE and outcome.player_total == bet.total:
        return won(bet.pays["win"])
    return LOST


def wins_or_ties_with(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 invincible 6: either side wins with ``total`` or the round ties at it, i.e.
    the higher of the two totals is ``total``."""
    if max(outcome.player_total, outcome.banker_total) == bet.total:
        return won(bet.pays["win"])
    return LOST


def wins_by_one(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 cha-shao (totals 7, 8, 9) and dragon-tiger (player, total 7): the side wins
    with one of ``totals`` by exactly one point; pays by the cards on the table."""
    if not side_won(outcome, bet.side):
        return LOST
    if total(outcome, bet.side) not in bet.totals:
        return LOST
    if abs(outcome.player_total - outcome.banker_total) != 1:
        return LOST
    key = TABLE_CARDS[outcome.cards_on_table]
    return won(bet.pays[key]) if key in bet.pays else LOST


def both_hands_total(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 fire 7s: both hands total ``total`` with the same number of cards; a 7-7 of
    a two-card and a three-card hand loses."""
    if not outcome.player_total == outcome.banker_total == bet.total:
        return LOST
    if len(outcome.player) != len(outcome.banker):
        return LOST
    key = HAND_CARDS[len(outcome.player)]
    return won(bet.pays[key]) if key in bet.pays else LOST


def three_card_total(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 heavenly 9: one hand / both hands are three cards totalling ``total``;
    winning the round is not required."""
    hits = sum(
        1
        for cards, t in (
            (outcome.player, outcome.player_total),
            (outcome.banker, outcome.banker_total),
        )
        if len(cards) == 3 and t == bet.total
    )
    if hits == 0:
        return LOST
    if hits == 2 and "both_hands" in bet.pays:
        return won(bet.pays["both_hands"])
    return won(bet.pays["one_hand"])
