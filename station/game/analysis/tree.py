"""Exact distribution of a round's values: totals and card counts of both hands.

Enumerates the deal tree of RULES.md 2 by baccarat value (0-9) on a full shoe of ``decks``
decks, using ``station.game.rules`` for every draw decision, so the analysis and the dealing
machine cannot disagree on the tableau. Weights are integers: the number of ordered ways
to draw six cards from the shoe whose first four to six produce that round (a round that
uses four cards is counted once for each way of drawing the two unused cards after it).
They therefore add up to exactly ``falling(52 * decks, 6)``, the convention of published
baccarat tables (4,998,398,275,503,360 for 8 decks).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from station.game.rules import banker_draws, player_draws

VALUES: Final = range(10)
CARDS_PER_DECK: Final = 52
KEYS: Final = 400  # player total x banker total x 2 or 3 player cards x 2 or 3 banker cards
ROUND_CARDS: Final = 6  # at most six cards a round (RULES.md 2)


class ValueKey(NamedTuple):
    """What a round looks like by value: final totals and cards per hand."""

    player_total: int
    banker_total: int
    player_cards: int
    banker_cards: int


def key_index(pt: int, bt: int, np: int, nb: int) -> int:
    return ((pt * 10 + bt) * 2 + np - 2) * 2 + nb - 2


def index_key(i: int) -> ValueKey:
    nb = i % 2 + 2
    np = i // 2 % 2 + 2
    return ValueKey(i // 4 // 10, i // 4 % 10, np, nb)


def falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1): ordered draws of k cards out of n."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


def value_counts(decks: int) -> list[int]:
    """Cards of each baccarat value in a full shoe: 10/J/Q/K count 0 (RULES.md 1)."""
    return [16 * decks] + [4 * decks] * 9


def round_weights(decks: int) -> list[int]:
    """Integer weight of every ``ValueKey`` (by ``key_index``), summing to
    ``falling(52 * decks, 6)``. Raises ``ValueError`` unless ``decks`` >= 1."""
    if decks < 1:
        raise ValueError(f"a shoe needs at least one deck, got {decks}")
    return weights_for_values(value_counts(decks))


def weights_for_values(counts: list[int]) -> list[int]:
    """``round_weights`` for any shoe given as its cards of each value 0-9 (at least six
    cards): the tree walked for that shoe. ``station.game.analysis.composition`` computes the same
    faster; this plain walk is what its test holds it to."""
    c = list(counts)
    n = sum(c)
    pad5 = n - 5  # ways to draw the unused sixth card
    pad4 = (n - 4) * pad5
    acc = [0] * KEYS
    # The weight of an ordered deal depends only on which values were drawn, so each hand's
    # two first cards are enumerated as an unordered pair and counted twice when they differ.
    for p1 in VALUES:
        for p2 in range(p1, 10):
            wp = c[p1]
            c[p1] -= 1
            wp *= c[p2]
            c[p2] -= 1
            if wp:
                pt2 = (p1 + p2) % 10
                mp = 1 if p1 == p2 else 2
                for b1 in VALUES:
                    for b2 in range(b1, 10):
                        w = wp * c[b1]
                        c[b1] -= 1
                        w *= c[b2]
                        c[b2] -= 1
                        if w:
                            w *= mp if b1 == b2 else 2 * mp
                            _third_cards(acc, c, w, pt2, (b1 + b2) % 10, pad4=pad4, pad5=pad5)
                        c[b2] += 1
                        c[b1] += 1
            c[p2] += 1
            c[p1] += 1
    return acc


def _third_cards(
    acc: list[int], c: list[int], w: int, pt2: int, bt2: int, *, pad4: int, pad5: int
) -> None:
    """Add the rounds that follow a two-card deal of weight ``w`` (counts ``c`` left)."""
    if not player_draws(pt2, bt2):
        if banker_draws(pt2, bt2, None):
            w5 = w * pad5
            for b3 in VALUES:
                if c[b3]:
                    acc[key_index(pt2, (bt2 + b3) % 10, 2, 3)] += w5 * c[b3]
        else:
            acc[key_index(pt2, bt2, 2, 2)] += w * pad4
        return
    for p3 in VALUES:
        w3 = w * c[p3]
        if not w3:
            continue
        pt = (pt2 + p3) % 10
        if banker_draws(pt2, bt2, p3):
            c[p3] -= 1
            for b3 in VALUES:
                if c[b3]:
                    acc[key_index(pt, (bt2 + b3) % 10, 3, 3)] += w3 * c[b3]
            c[p3] += 1
        else:
            acc[key_index(pt, bt2, 3, 2)] += w3 * pad5
