"""Every bet's return as the shoe is dealt, one card at a time (issue 35). Pure: no I/O.

``CompositionAnalyzer.rtp_ratios`` starts from the 52 counts at every betting opening; a
table's composition changes by one card at a time, so ``RunningShoe`` keeps what a card
changes and values the next opening from that:

- pairs group (either, perfect, tiger pair): the sums the closed form of
  ``pair_class_weights`` reads (falling factorials of every card's and rank's count, and their
  squares) are kept in Python integers, each card taking out its old terms and adding its
  new ones: a few dozen integer operations, exact.
- one hand's two cards (pair, 4-fortune pair, colour): 2,704 ordered hands, one product of
  the counts with the bets' returns at the opening, exact in int64 (as the analyzer does).
- values (totals, naturals, dragon bonus, ...): the ten value counts and their falling
  factorials are kept card by card; the 6,958 multisets' weights are then two products of
  a low half (values 0-4) and a high half (5-9), each a product of 462 small tables, and
  the bets' numerators three matrix products (one per round length) in float64. Every
  weight is an integer under 2**53 (six factors of at most 128), so only the matrix sums
  round, by at most ``RELATIVE_ERROR`` of the value (every term is non-negative). A
  published figure, rounded to six decimals, and the guard's comparison with the limit are
  taken from the float only when no value within that bound rounds or compares otherwise;
  else (about one bet in a million) from the exact integers of ``rtp_ratios``. So every
  figure and every decision is the exact one (tests/bets/test_running_guard.py compares
  them over whole shoes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from station.game.analysis.composition import FALLS, CompositionAnalyzer, value_tree
from station.game.analysis.estimate import Estimate, Valued
from station.game.analysis.tree import ROUND_CARDS, falling
from station.game.cards import ALL_CARDS, DECK_SIZE
from station.game.limits import DECKS_MAX

_RANK_OF: Final = tuple(c.index % 13 for c in ALL_CARDS)  # Card.index = suit * 13 + rank
_VALUE_OF: Final = tuple(c.value for c in ALL_CARDS)
_LOW: Final = 5  # values 0-4 are the low half of a multiset, 5-9 the high


def _f2(x: int) -> int:
    return x * (x - 1)


def _f4(x: int) -> int:
    return x * (x - 1) * (x - 2) * (x - 3)


class _Values:
    """The values group's tables for one analyzer, built once."""

    def __init__(self, analyzer: CompositionAnalyzer) -> None:
        tree = value_tree()
        groups = tree.cards.shape[0]
        keys = len(tree.keys)
        # Each group's copies of each value, from its factor indices (value * 7 + copies).
        copies = np.zeros((groups, 10), dtype=np.int64)
        for row in tree.factors:
            copies[np.arange(groups), row // FALLS] += np.where(row % FALLS > 0,
                                                                  row % FALLS, 0)
        ends = np.append(tree.starts, len(tree.entry_group))
        key_of_entry = np.repeat(np.arange(keys), np.diff(ends))
        coef = analyzer._v_coef  # (keys, bets) int64 returns over each bet's denominator
        weights = np.zeros((groups, coef.shape[1]), dtype=np.float64)
        # float64 sums of int64 products: exact while under 2**53 (seed 003: 2**14).
        np.add.at(weights, tree.entry_group,
                  (tree.entry_count[:, None] * coef[key_of_entry]).astype(np.float64))
        low, self.low_of = np.unique(copies[:, :_LOW], axis=0, return_inverse=True)
        high, self.high_of = np.unique(copies[:, _LOW:], axis=0, return_inverse=True)
        self.low_of = self.low_of.ravel()
        self.high_of = self.high_of.ravel()
        # Where each half's factors are in the flattened (10, 7) table of falling factorials,
        # one row per value (five contiguous products beat a reduction along a short axis).
        self.low_index = np.ascontiguousarray((np.arange(_LOW) * FALLS + low).T)
        self.high_index = np.ascontiguousarray((np.arange(_LOW, 10) * FALLS + high).T)
        # By round length, then by low half: each length's weights are then the low
        # products repeated (np.repeat, not a gather) times the high products gathered.
        order = np.lexsort((self.low_of, tree.cards))
        self.low_of = self.low_of[order]
        self.high_of = np.ascontiguousarray(self.high_of[order])
        sizes = tree.cards[order]
        self.sizes = range(4, ROUND_CARDS + 1)  # a round deals 4, 5 or 6 cards
        self.slices = [(int(np.searchsorted(sizes, n)), int(np.searchsorted(sizes, n, "right")))
                       for n in self.sizes]
        # (bets, multisets) rows: a matrix-vector product reads each row contiguously.
        self.weights = [np.ascontiguousarray(weights[order][a:b].T) for a, b in self.slices]
        self.repeats = [np.bincount(self.low_of[a:b], minlength=len(low)) for a, b in self.slices]
        self.highs = [self.high_of[a:b] for a, b in self.slices]
        self._pads: dict[int, tuple[tuple[float, ...], float]] = {}
        self.dens = np.array(analyzer._v_den, dtype=np.float64)
        self.keys = [b.key for b in analyzer._values]
        # falling(c, j) for every count c a value can have and j = 0..6.
        most = 4 * DECKS_MAX * 4  # value 0 has four ranks
        self.falls = np.array([[falling(c, j) for j in range(FALLS)]
                               for c in range(most + 1)], dtype=np.float64)


    def pads(self, n: int) -> tuple[tuple[float, ...], float]:
        """For ``n`` cards left: each round length's padding (the unused draws, as
        ``composition.key_weights``), exact in float64 (under 2**53), and all six-card draws,
        rounded once: inside the error bound."""
        found = self._pads.get(n)
        if found is None:
            found = self._pads[n] = (
                tuple(float(falling(n - k, ROUND_CARDS - k)) for k in self.sizes),
                float(falling(n, ROUND_CARDS)))
        return found


class RunningShoe:
    """One shoe's composition for ``analyzer``'s bets, kept card by card.

    ``start(left)`` at a shoe (or whenever the counts cannot be followed), ``take(index)``
    for each card out, ``rtp()`` at an opening: every bet's return, exact or an
    ``Estimate``. Not for two threads at once."""

    def __init__(self, analyzer: CompositionAnalyzer) -> None:
        self.analyzer = analyzer
        self._v = _Values(analyzer) if analyzer._values else None
        self._hand_keys = [b.key for b in analyzer._hand]
        self._pair_keys = [b.key for b in analyzer._pairs]
        self._pair_coef = [[int(c) for c in col] for col in analyzer._p_coef.T]
        self._order = [b.key for b in analyzer.paytable.bets]
        # The hand bets' returns as (bets * 52, 52) float64 matrices: every partial sum is an
        # integer under DECKS_MAX**2 * 2,704 * the largest return, exact while under 2**53
        # (seed 003: under 2**26); else Python integers.
        self._hand_float: tuple[Any, Any] | None = None
        if self._hand_keys and (int(np.abs(analyzer._h_coef).max()) * DECKS_MAX**2
                                * DECK_SIZE**2 < 2**53):
            coef = analyzer._h_coef.T.reshape(len(self._hand_keys), DECK_SIZE, DECK_SIZE)
            coef = coef.astype(np.float64)
            self._hand_float = (np.ascontiguousarray(coef.reshape(-1, DECK_SIZE)),
                                np.ascontiguousarray(np.stack([np.diag(c) for c in coef])))
        self.left: list[int] = []
        self.start([0] * DECK_SIZE)

    def start(self, left: Sequence[int]) -> None:
        self.left = list(left)
        self.n = sum(left)
        self.values = [0] * 10
        for i, c in enumerate(left):
            self.values[_VALUE_OF[i]] += c
        self.fall = (self._v.falls[self.values] if self._v is not None
                     else np.zeros((10, FALLS)))
        self.ranks = [0] * 13
        for i, c in enumerate(left):
            self.ranks[_RANK_OF[i]] += c
        # The sums of the pairs' closed form (composition.pair_class_weights).
        fr = [_f2(r) for r in self.ranks]
        self.ar = sum(fr)
        self.sq_r = sum(x * x for x in fr)
        self.f4_r = sum(_f4(r) for r in self.ranks)
        fx = [_f2(c) for c in left]
        self.ax = sum(fx)
        self.sq_x = sum(x * x for x in fx)
        self.f4_x = sum(_f4(c) for c in left)
        self.fx_rank = [0] * 13  # sum of f2 over the cards of each rank
        for i, x in enumerate(fx):
            self.fx_rank[_RANK_OF[i]] += x
        # sum over ranks of (f2(R) - f2(R - 2)) * fx_rank, so jxr = ar * ax - this
        self.cross = sum((_f2(r) - _f2(r - 2)) * s
                         for r, s in zip(self.ranks, self.fx_rank, strict=True))

    def take(self, index: int) -> None:
        """One card of ``Card.index`` out of the shoe. ``ValueError`` if none is left."""
        c = self.left[index]
        if c <= 0:
            raise ValueError(f"{ALL_CARDS[index].code}: none left to take")
        rank = _RANK_OF[index]
        r = self.ranks[rank]
        old_cross = (_f2(r) - _f2(r - 2)) * self.fx_rank[rank]
        # The card's own terms, then its rank's.
        fx_old, fx_new = _f2(c), _f2(c - 1)
        self.ax += fx_new - fx_old
        self.sq_x += fx_new * fx_new - fx_old * fx_old
        self.f4_x += _f4(c - 1) - _f4(c)
        self.fx_rank[rank] += fx_new - fx_old
        fr_old, fr_new = _f2(r), _f2(r - 1)
        self.ar += fr_new - fr_old
        self.sq_r += fr_new * fr_new - fr_old * fr_old
        self.f4_r += _f4(r - 1) - _f4(r)
        self.ranks[rank] = r - 1
        self.cross += (fr_new - _f2(r - 3)) * self.fx_rank[rank] - old_cross
        self.left[index] = c - 1
        self.n -= 1
        value = _VALUE_OF[index]
        self.values[value] -= 1
        if self._v is not None:
            self.fall[value] = self._v.falls[self.values[value]]

    def pair_weights(self) -> tuple[list[int], int]:
        """``composition.pair_class_weights`` of the current counts, from the kept sums."""
        ar, ax = self.ar, self.ax
        jrr = self.f4_r + ar * ar - self.sq_r
        ident = self.f4_x
        jxx = ident + ax * ax - self.sq_x
        jxr = ar * ax - self.cross
        rest = _f2(self.n - 2)
        mr, mx = ar * rest, ax * rest
        w10 = mr - mx - jrr + jxr
        w20 = mx - jxr
        w21 = jxr - jxx
        w11 = jrr - 2 * jxr + jxx
        total = falling(self.n, 4)
        known = [w10, w20, w10, w20, w11, w21, w21, jxx - ident, ident]
        return [total - sum(known), *known], total

    def rtp(self) -> dict[str, Valued]:
        """Every bet's return for the next round, in paytable order (at least
        ``ROUND_CARDS`` cards must be left)."""
        a = self.analyzer
        out: dict[str, Valued] = {}
        v = self._v
        if v is not None:
            flat = self.fall.ravel()
            f = flat[v.low_index]
            low = f[0] * f[1]
            low *= f[2]
            low *= f[3]
            low *= f[4]
            f = flat[v.high_index]
            high = f[0] * f[1]
            high *= f[2]
            high *= f[3]
            high *= f[4]
            pads, draws = v.pads(self.n)
            total: Any = 0.0
            for repeats, highs, weights, pad in zip(v.repeats, v.highs, v.weights, pads,
                                                    strict=True):
                w = np.repeat(low, repeats)
                w *= high.take(highs)
                total = total + pad * (weights @ w)
            total /= v.dens * draws
            for key, x in zip(v.keys, total.tolist(), strict=True):
                out[key] = Estimate(x)
        if self._hand_keys:
            total2 = falling(self.n, 2)
            if self._hand_float is not None:
                # n C n - diag(C) n: the ordered hands N_a (N_b - [a = b]) times the returns,
                # as two small products, exact (see _hand_float).
                forms, diagonals = self._hand_float
                cards = np.array(self.left, dtype=np.float64)
                nums = [int(x) for x in
                        (forms @ cards).reshape(len(self._hand_keys), -1) @ cards
                        - diagonals @ cards]
            else:  # an exotic payout: Python integers
                counts = np.array(self.left, dtype=np.int64)
                hands = (np.outer(counts, counts) - np.diag(counts)).ravel()
                nums = [sum(int(h) * int(c) for h, c in zip(hands, col, strict=True))
                        for col in a._h_coef.T]
            for key, num, den in zip(self._hand_keys, nums, a._h_den, strict=True):
                out[key] = (num, den * total2)
        if self._pair_keys:
            weights4, total4 = self.pair_weights()
            for key, col, den in zip(self._pair_keys, self._pair_coef, a._p_den, strict=True):
                out[key] = (sum(w * c for w, c in zip(weights4, col, strict=True)),
                            den * total4)
        return {k: out[k] for k in self._order}
