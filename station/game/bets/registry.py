"""The closed list of bet kinds: what each reads, which parameters and payouts it takes.

``station.settings.paytable`` validates a paytable against ``KINDS``; ``settle_bet`` dispatches one
bet of one round to its kind's function after applying the paytable's push conditions.
``reads`` tells the exact analysis which part of a round a kind depends on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from station.game.bets import first_two, main, totals
from station.game.bets.model import LOST, PUSHED, Bet, Settled, is_natural_tie, won
from station.game.outcome import RoundOutcome, Winner

KindFunc = Callable[[Bet, RoundOutcome], Settled]
Reads = Literal["values", "first_two", "refs"]

SIDES: Final = ("player", "banker")
WINNER_PUSHES: Final = frozenset({"tie", "natural_tie"})


@dataclass(frozen=True, slots=True)
class KindSpec:
    """What a kind needs from its paytable entry.

    ``params``: required parameters; ``sides``: allowed ``side`` values; ``pays_required`` /
    ``pays_optional``: payout names (at least one of the optional ones when nothing is
    required); ``pushes``: push conditions that make sense for it; ``reads``: ``values``
    (totals, card counts, naturals: baccarat values only) or ``first_two`` (ranks and suits
    of each hand's first two cards), or ``refs`` for a bet made of other bets.
    """

    func: KindFunc
    reads: Reads
    summary: str
    params: tuple[str, ...] = ()
    sides: tuple[str, ...] = SIDES
    pays_required: tuple[str, ...] = ("win",)
    pays_optional: tuple[str, ...] = ()
    pushes: frozenset[str] = frozenset()

    @property
    def pay_names(self) -> tuple[str, ...]:
        return self.pays_required + self.pays_optional


def any_of(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Seed 003 all treasure: wins when any of the referenced bets wins on this round,
    whether or not those bets were still open (their cut-off does not matter)."""
    if any(settle_bet(ref, outcome).result == "win" for ref in bet.refs):
        return won(bet.pays["win"])
    return LOST


_HAND = ("two_cards", "three_cards")
_TABLE = ("four_cards", "five_cards", "six_cards")
_MARGINS = tuple(f"margin_{m}" for m in range(9, 3, -1))

KINDS: Final[dict[str, KindSpec]] = {
    "main": KindSpec(
        main.main,
        "values",
        "the side wins",
        ("side",),
        pays_optional=("win_with_6",),
        pushes=WINNER_PUSHES,
    ),
    "tie": KindSpec(main.tie, "values", "equal totals"),
    "double": KindSpec(
        main.double,
        "values",
        "the side wins; more with a three-card 8 or 9",
        ("side",),
        pays_required=("win", "three_card_8_or_9"),
        pushes=WINNER_PUSHES,
    ),
    "natural": KindSpec(
        main.natural,
        "values",
        "that hand's first two cards total 8 or 9",
        ("side",),
        pushes=WINNER_PUSHES,
    ),
    "dragon_bonus": KindSpec(
        main.dragon_bonus,
        "values",
        "the side wins with a natural or by 4+ points",
        ("side",),
        pays_required=("natural_win", *_MARGINS),
        pushes=WINNER_PUSHES,
    ),
    "wins_with": KindSpec(
        totals.wins_with,
        "values",
        "the side wins with the total (2 or 3 cards)",
        ("side", "total"),
        sides=(*SIDES, "either"),
        pays_required=(),
        pays_optional=_HAND,
        pushes=WINNER_PUSHES,
    ),
    "tie_at": KindSpec(totals.tie_at, "values", "a tie at the total", ("total",)),
    "wins_or_ties_with": KindSpec(
        totals.wins_or_ties_with,
        "values",
        "the higher total is the total",
        ("total",),
    ),
    "wins_by_one": KindSpec(
        totals.wins_by_one,
        "values",
        "the side wins by one point with one of the totals",
        ("side", "totals"),
        pays_required=(),
        pays_optional=_TABLE,
        pushes=WINNER_PUSHES,
    ),
    "both_hands_total": KindSpec(
        totals.both_hands_total,
        "values",
        "both hands total it with as many cards",
        ("total",),
        pays_required=(),
        pays_optional=_HAND,
    ),
    "three_card_total": KindSpec(
        totals.three_card_total,
        "values",
        "a hand is three cards totalling it",
        ("total",),
        pays_required=("one_hand",),
        pays_optional=("both_hands",),
    ),
    "pair": KindSpec(first_two.pair, "first_two", "that hand's first two are a pair", ("side",)),
    "either_pair": KindSpec(first_two.either_pair, "first_two", "either hand starts a pair"),
    "perfect_pair": KindSpec(
        first_two.perfect_pair,
        "first_two",
        "either hand starts a same-suit pair",
        pays_optional=("both_hands",),
    ),
    "tiger_pair": KindSpec(
        first_two.tiger_pair,
        "first_two",
        "one, both or identical starting pairs",
        pays_required=("identical_pairs", "both_pairs", "one_pair"),
    ),
    "four_fortune_pair": KindSpec(
        first_two.four_fortune_pair,
        "first_two",
        "that hand starts a pair, 4s and diamonds pay more",
        ("side",),
        pays_required=("pair_of_4_diamonds", "pair_of_4s", "diamond_pair", "other_pair"),
    ),
    "colour": KindSpec(
        first_two.colour,
        "first_two",
        "that hand's first two are both the colour",
        ("side", "colour"),
    ),
    "any_of": KindSpec(any_of, "refs", "any of the listed bets wins", ("bets",)),
}


def reads(bet: Bet) -> frozenset[Reads]:
    """The parts of a round ``bet`` depends on: ``values``, ``first_two``, or, for a bet made
    of other bets, whatever those read. The exact analysis and the settlement cache both rely
    on it, and tests/bets/test_analysis_symmetry.py holds every kind to its declaration."""
    spec = KINDS[bet.kind]
    if spec.reads != "refs":
        return frozenset((spec.reads,))
    return frozenset(KINDS[r.kind].reads for r in bet.refs)


def settle_bet(bet: Bet, outcome: RoundOutcome) -> Settled:
    """Settle one bet on one finished round: push conditions first, then the kind's rule."""
    if outcome.winner is Winner.TIE and (
        "tie" in bet.push or ("natural_tie" in bet.push and is_natural_tie(outcome))
    ):
        return PUSHED
    return KINDS[bet.kind].func(bet, outcome)
