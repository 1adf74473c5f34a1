"""The assumptions that make the exact analysis small, checked on random legal rounds.

A ``values`` bet must settle a round exactly as it settles the representative round of the
same totals and card counts; a ``first_two`` bet must settle it exactly as the canonical
first four cards (ranks other than 4 relabelled, spades and clubs swapped) with no third
cards. If a new kind breaks either, the analysis would be silently wrong: this fails first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from station.game.analysis.exact import value_round
from station.game.analysis.first_two import _canonical_ranks, _canonical_suits
from station.game.analysis.tree import key_index
from station.game.bets.registry import KINDS, settle_bet
from station.game.cards import ALL_CARDS, Card, parse_card
from station.game.outcome import RoundOutcome, decide
from station.game.rules import banker_draws, player_draws
from station.settings.paytable import load_paytable
from tests.sampling import examples

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"
BETS = [
    bet
    for path in sorted(PAYTABLES.glob("*.yaml"))
    for variant in [(), *[(v,) for v in load_paytable(path).available_variants]]
    for bet in load_paytable(path, variant).bets
]


def deal(cards: list[Card]) -> RoundOutcome:
    """Deal the next cards of a shoe by the tableau (RULES.md 2)."""
    p, b = [cards[0], cards[2]], [cards[1], cards[3]]
    pt2, bt2 = (p[0].value + p[1].value) % 10, (b[0].value + b[1].value) % 10
    rest = iter(cards[4:])
    third = None
    if player_draws(pt2, bt2):
        p.append(next(rest))
        third = p[2].value
    if banker_draws(pt2, bt2, third):
        b.append(next(rest))
    return decide(tuple(p), tuple(b))


def reads(kind: str, refs: tuple[str, ...]) -> set[str]:
    spec = KINDS[kind]
    return {KINDS[r].reads for r in refs} if spec.reads == "refs" else {spec.reads}


six_cards = st.lists(st.sampled_from(ALL_CARDS), min_size=6, max_size=6)


def codes(text: str) -> list[Card]:
    return [parse_card(c) for c in text.split()]


# Cases a uniform draw rarely reaches: identical and mixed pairs of 4s, diamond pairs, clubs
# before spades.
RARE = [
    codes("4D 4D 4D 4D KS KS"),
    codes("4S 4D 4D 4S KS KS"),
    codes("9D 9C 9D 9C 2S 3S"),
    codes("KC KS KC KS 5H 5D"),
    codes("AC 4H AC 4H 7D 7D"),
]



def with_rare_cases(test: Callable[[list[Card]], None]) -> Callable[[list[Card]], None]:
    """Always try the RARE deals too, whatever hypothesis draws."""
    for cards in RARE:
        test = example(cards)(test)
    return test


@settings(max_examples=examples(400), deadline=None)
@given(six_cards)
@with_rare_cases
def test_value_bets_see_only_totals_and_card_counts(cards: list[Card]) -> None:
    outcome = deal(cards)
    index = key_index(
        outcome.player_total, outcome.banker_total, len(outcome.player), len(outcome.banker)
    )
    representative = value_round(index)
    for bet in BETS:
        if reads(bet.kind, tuple(r.kind for r in bet.refs)) == {"values"}:
            assert settle_bet(bet, outcome) == settle_bet(bet, representative), bet.key


@settings(max_examples=examples(400), deadline=None)
@given(six_cards)
@with_rare_cases
def test_first_two_bets_see_only_canonical_first_four_cards(cards: list[Card]) -> None:
    outcome = deal(cards)
    first = cards[:4]
    ranks = _canonical_ranks(tuple(c.rank for c in first))
    suits = _canonical_suits(tuple(c.suit for c in first))
    canon = [parse_card(r + s) for r, s in zip(ranks, suits, strict=True)]
    representative = decide((canon[0], canon[2]), (canon[1], canon[3]))
    for bet in BETS:
        if reads(bet.kind, tuple(r.kind for r in bet.refs)) == {"first_two"}:
            assert settle_bet(bet, outcome) == settle_bet(bet, representative), bet.key
