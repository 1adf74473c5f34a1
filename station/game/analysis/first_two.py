"""Exact distribution of the first four cards by rank and suit, up to the symmetries that
the ``first_two`` bet kinds cannot see.

Those kinds (pairs, perfect pairs, tiger pair, 4-fortune pairs, colours) read only whether
ranks and suits are equal, whether a rank is 4, and whether a suit is diamonds, hearts or
black. So the twelve ranks other than 4 are interchangeable, and so are spades and clubs:
the 52**4 ordered rank-and-suit sequences collapse to a few thousand classes, each with an
exact integer weight (ordered draws from the shoe). ``tests/bets/test_analysis_symmetry.py`` pins
the assumption by relabelling random deals.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import product
from typing import Final

from station.game.bets.first_two import FORTUNE_RANK
from station.game.cards import RANKS, SUITS, Card, parse_card

# Positions of the first four cards in deal order (RULES.md 2.1): P, B, P, B.
DEAL: Final = 4
OTHER_RANKS: Final = tuple(r for r in RANKS if r != FORTUNE_RANK)
BLACK: Final = ("S", "C")


def _canonical_ranks(ranks: tuple[str, ...]) -> tuple[str, ...]:
    """Relabel non-4 ranks by order of first appearance: (K, 4, K, 9) -> (A, 4, A, 2)."""
    names: dict[str, str] = {}
    out = []
    for r in ranks:
        if r == FORTUNE_RANK:
            out.append(r)
        else:
            out.append(names.setdefault(r, OTHER_RANKS[len(names)]))
    return tuple(out)


def _canonical_suits(suits: tuple[str, ...]) -> tuple[str, ...]:
    """Swap spades and clubs so that the first black suit to appear is spades."""
    first_black = next((s for s in suits if s in BLACK), "S")
    if first_black == "S":
        return suits
    swap = {"S": "C", "C": "S"}
    return tuple(swap.get(s, s) for s in suits)


@lru_cache(maxsize=1)
def _classes() -> tuple[tuple[tuple[str, ...], tuple[str, ...], int], ...]:
    """(rank pattern, suit pattern, number of concrete sequences) for every class."""
    ranks = Counter(_canonical_ranks(t) for t in product(RANKS, repeat=DEAL))
    suits = Counter(_canonical_suits(t) for t in product(SUITS, repeat=DEAL))
    return tuple((r, s, nr * ns) for r, nr in ranks.items() for s, ns in suits.items())


def first_four_classes(decks: int) -> list[tuple[tuple[Card, ...], int]]:
    """Representative first four cards (deal order) and the exact number of ordered ways to
    draw a sequence of that class from a full shoe; the weights add up to
    ``falling(52 * decks, 4)``. Raises ``ValueError`` unless ``decks`` >= 1."""
    if decks < 1:
        raise ValueError(f"a shoe needs at least one deck, got {decks}")
    out = []
    for ranks, suits, count in _classes():
        codes = [r + s for r, s in zip(ranks, suits, strict=True)]
        weight = count
        for i, code in enumerate(codes):
            # Each (rank, suit) exists ``decks`` times; earlier copies are gone.
            weight *= decks - codes[:i].count(code)
        if weight:
            out.append((tuple(parse_card(code) for code in codes), weight))
    return out
