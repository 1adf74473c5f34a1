"""Exact probability and return of every bet of a paytable (issue 3, RULES.md 5).

Every bet kind reads either the round's values (totals, card counts, naturals) or the ranks
and suits of each hand's first two cards (``station.game.bets.registry.KindSpec.reads``). So a
bet is analysed over one of two exact, integer-weighted distributions (``tree`` and
``first_two``), by settling one representative round per class with the very settlement
code the station publishes. House edge is minus the expected net result per unit staked,
every round counted (a push counts 0), the convention of the published tables.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from station.errors import ConfigError
from station.game.analysis.first_two import first_four_classes
from station.game.analysis.tree import falling, index_key, round_weights
from station.game.bets.model import LOSE, PUSH, WIN, Bet, Paytable
from station.game.bets.registry import Reads, reads, settle_bet
from station.game.cards import Card, parse_card
from station.game.outcome import RoundOutcome, decide

# Cards that carry a baccarat value, for representative hands (RULES.md 1).
_BY_VALUE = ("T", "A", "2", "3", "4", "5", "6", "7", "8", "9")


@dataclass(frozen=True, slots=True)
class BetAnalysis:
    """Exact figures of one bet. Probabilities are of one round off the top of a full shoe;
    ``win_by_payout`` maps each "X to 1" payout to the probability of winning it."""

    key: str
    label: str
    win: Fraction
    push: Fraction
    lose: Fraction
    win_by_payout: dict[Fraction, Fraction]

    @property
    def expected_net(self) -> Fraction:
        """Expected net result per unit staked (negative: the house wins)."""
        return sum((p * x for x, p in self.win_by_payout.items()), Fraction(0)) - self.lose

    @property
    def house_edge(self) -> Fraction:
        return -self.expected_net

    @property
    def variance(self) -> Fraction:
        """Variance of the net result per unit staked on one round."""
        square = sum((p * x * x for x, p in self.win_by_payout.items()), Fraction(0))
        return square + self.lose - self.expected_net**2

    @property
    def rtp(self) -> Fraction:
        """Return to player: 1 + expected net result per unit staked."""
        return 1 + self.expected_net


@dataclass(frozen=True, slots=True)
class PaytableAnalysis:
    paytable: str
    decks: int
    bets: tuple[BetAnalysis, ...]


def analyze(paytable: Paytable, decks: int = 8) -> PaytableAnalysis:
    """Exact analysis of every bet of ``paytable`` on a shoe of ``decks`` decks. Pure.

    Raises ``ValueError`` for fewer than one deck and ``ConfigError`` for a combined bet
    (``any_of``) that mixes value bets with rank-and-suit bets, which cannot be split into
    the two distributions.
    """
    groups: dict[Reads, list[Bet]] = {"values": [], "first_two": []}
    for bet in paytable.bets:
        groups[_reads(paytable, bet)].append(bet)
    found: dict[str, BetAnalysis] = {}
    if groups["values"]:
        weights = round_weights(decks)
        classes = [(value_round(i), w) for i, w in enumerate(weights) if w]
        found.update(tally(groups["values"], classes, falling(52 * decks, 6)))
    if groups["first_two"]:
        firsts = [(decide((c[0], c[2]), (c[1], c[3])), w) for c, w in first_four_classes(decks)]
        found.update(tally(groups["first_two"], firsts, falling(52 * decks, 4)))
    return PaytableAnalysis(paytable.name, decks, tuple(found[b.key] for b in paytable.bets))


def _reads(paytable: Paytable, bet: Bet) -> Reads:
    kinds = set(reads(bet))
    if len(kinds) != 1:
        raise ConfigError(
            f"{paytable.path}: bet {bet.key!r}: key 'bets': mixes bets on totals with bets on "
            "ranks and suits, which the exact analysis cannot combine; list bets of one sort"
        )
    return kinds.pop()


def value_round(index: int) -> RoundOutcome:
    """A round with the totals and card counts of ``index``; a three-card hand starts with
    two cards worth 0 so that it is never a natural, as the tableau guarantees."""
    key = index_key(index)
    return decide(
        _hand(key.player_total, key.player_cards, "S"),
        _hand(key.banker_total, key.banker_cards, "H"),
    )


def _hand(total: int, cards: int, suit: str) -> tuple[Card, ...]:
    ranks = ("J", _BY_VALUE[total]) if cards == 2 else ("J", "Q", _BY_VALUE[total])
    return tuple(parse_card(r + suit) for r in ranks)


def tally(
    bets: Sequence[Bet], classes: Iterable[tuple[RoundOutcome, int]], total: int
) -> dict[str, BetAnalysis]:
    # Keyed by plain ints, not by ``Settled``: hashing a Fraction costs more than settling.
    counts: list[dict[tuple[str, int, int], int]] = [defaultdict(int) for _ in bets]
    for outcome, weight in classes:
        for bet, by in zip(bets, counts, strict=True):
            result, pays = settle_bet(bet, outcome)
            by[result, pays.numerator, pays.denominator] += weight
    out = {}
    for bet, by in zip(bets, counts, strict=True):
        wins: dict[Fraction, Fraction] = defaultdict(Fraction)
        for (kind, num, den), w in by.items():
            if kind == WIN:
                wins[Fraction(num, den)] += Fraction(w, total)
        out[bet.key] = BetAnalysis(
            key=bet.key,
            label=bet.label,
            win=sum(wins.values(), Fraction(0)),
            push=Fraction(sum(w for k, w in by.items() if k[0] == PUSH), total),
            lose=Fraction(sum(w for k, w in by.items() if k[0] == LOSE), total),
            win_by_payout=dict(sorted(wins.items())),
        )
    return out
