"""Bets on who wins and by how much: Player/Banker, Tie, Double, Natural, Dragon bonus.

Each function settles one bet on one finished round; push conditions listed in the paytable
were already checked by the caller (``station.game.bets.registry.settle_bet``).
"""

from __future__ import annotations

from station.game.bets.model import LOST, Bet, Settled, hand, side_won, total, won
from station.game.outcome import RoundOutcome, Winner
from station.game.rules import NATURALS


def main(bet: Bet, outcome: RoundOutcome) -> Settled:
    """RULES.md 5 Player / Banker: the side wins. RULES.md 4: the no-commission Banker pays
    ``win_with_6`` (0.5 on seeds 000 and 003) when it wins with a total of 6."""
    if not side_won(outcome, bet.side):
        return LOST
    if "win_with_6" in bet.pays and total(outcome, bet.side) == 6:
        return won(bet.pays["win_with_6"])
    return won(bet.pays["win"])


def tie(bet: Bet, outcome: RoundOutcome) -> Settled:
    """RULES.md 5 Tie: equal totals (8 to 1 on 000/003, 9 to 1 on 002)."""
    return won(bet.pays["win"]) if outcome.winner is Winner.TIE else LOST


def double(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 double Banker/Player: the side wins; more with a three-card 8 or 9.

    Seed 003 says a tie is not refunded, so the paytable lists no push for it.
    """
    if not side_won(outcome, bet.side):
        return LOST
    cards = hand(outcome, bet.side)
    if len(cards) == 3 and total(outcome, bet.side) in NATURALS:
        return won(bet.pays["three_card_8_or_9"])
    return won(bet.pays["win"])


def natural(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seeds 000/003 Player/Banker natural: that hand's first two cards total 8 or 9.

    Whether the hand also wins does not matter (seed 000 defines the bet by the two cards
    alone); seed 003's natural-tie refund is a ``push`` entry in its paytable.
    """
    first_two = hand(outcome, bet.side)[:2]
    return won(bet.pays["win"]) if sum(c.value for c in first_two) % 10 in NATURALS else LOST


def dragon_bonus(bet: Bet, outcome: RoundOutcome) -> Settled:
    """RULES.md 5 dragon bonus: a natural win pays ``natural_win``; a non-natural win by a
    margin of 4..9 pays ``margin_N``; smaller margins lose. The natural-tie refund is a
    ``push`` entry in the paytable."""
    if not side_won(outcome, bet.side):
        return LOST
    if outcome.natural:
        return won(bet.pays["natural_win"])
    margin = abs(outcome.player_total - outcome.banker_total)
    key = f"margin_{margin}"
    return won(bet.pays[key]) if key in bet.pays else LOST
