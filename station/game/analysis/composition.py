"""Exact returns of a paytable's bets for any shoe composition (issue 25). Pure: no I/O.

A composition is 52 counts, one per card in ``Card.index`` order (rank and suit: colour,
suit and pair bets need them). ``CompositionAnalyzer(paytable)`` does every per-paytable
step once; then ``rtp(counts)`` gives every bet's exact return in well under a millisecond
and ``analyze(counts)`` the full figures of ``station.game.analysis.analyze``. For a full shoe
both equal today's analysis exactly (tests/bets/test_analysis_composition.py).

Three groups of bets, each over its own exact integer-weighted classes, each class settled
once on a representative round by the station's own settlement code:

- values (totals, card counts, naturals): the tableau tree by baccarat value is enumerated
  once per process and grouped by the *multiset* of values a round draws. The number of
  ordered ways to draw a value sequence from the shoe depends on that multiset only
  (a product of falling factorials of the ten value counts), so for a composition each of
  the 6,958 multisets is weighed once, and the 400 round classes are integer sums of them.
- one hand's first two cards (pair, 4-fortune pair, colour): the 52 x 52 ordered two-card
  hands, weighed ``N_a (N_b - [a = b])``. Any two positions of the deal have the same
  distribution, so a Player and a Banker bet read the same table.
- both hands' pair structure (either pair, perfect pair, tiger pair): ten classes (each hand
  no pair / a pair / a same-suit pair, and "identical" for four equal cards) weighed in
  closed form from the counts by inclusion-exclusion.

Weights are exact integers in numpy ``int64``: every sum is bounded by the shoe's ordered
six-card draws, under 2**53 for 8 decks. A bet's numerator (weights x returns) may not be,
so the values group multiplies in two 27-bit limbs; a paytable whose returns are too large
even for that (payouts of ten and more decimals) is summed in Python integers. Nothing is
rounded: returns are ``Fraction``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

import numpy as np

from station.errors import ConfigError
from station.game.analysis.exact import BetAnalysis, PaytableAnalysis, tally, value_round
from station.game.analysis.groups import group_of
from station.game.analysis.tree import ROUND_CARDS, falling, key_index
from station.game.bets.model import LOSE, PUSH, Bet, Paytable, Settled
from station.game.bets.registry import settle_bet
from station.game.cards import ALL_CARDS, DECK_SIZE, RANKS, Card, parse_card
from station.game.limits import DECKS_MAX
from station.game.outcome import RoundOutcome, decide
from station.game.rules import banker_draws, player_draws

_LIMB: Final = 27  # bits of the low limb: weights < 2**53 split into two
_VALUES: Final = range(10)
_RANK_OF: Final = tuple(RANKS.index(c.rank) for c in ALL_CARDS)
# A card's baccarat value by index: 10, J, Q, K count 0 (RULES.md 1).
_VALUE_OF: Final = tuple(c.value for c in ALL_CARDS)


def full_shoe(decks: int) -> list[int]:
    """The composition of a full shoe of ``decks`` decks."""
    return [decks] * DECK_SIZE


def check_counts(counts: Sequence[int]) -> None:
    """Raise ``ValueError`` unless ``counts`` is 52 counts of 0..DECKS_MAX with at least
    ``ROUND_CARDS`` cards in all."""
    if len(counts) != DECK_SIZE:
        raise ValueError(f"a composition has {DECK_SIZE} counts, got {len(counts)}")
    for card, n in zip(ALL_CARDS, counts, strict=True):
        if not 0 <= n <= DECKS_MAX:
            raise ValueError(f"{card.code}: {n} copies; a shoe holds 0 to {DECKS_MAX} of a card")
    if sum(counts) < ROUND_CARDS:
        raise ValueError(f"{sum(counts)} cards left; a round may need {ROUND_CARDS}")


# --- the values tree, once per process --------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Tree:
    # For each multiset, where its factors are in the flattened (10 values x 7) table of
    # falling factorials: value * 7 + copies, padded with 0 (falling(c, 0) = 1), six a row.
    factors: Any  # (6, groups) int64, one row per factor: six contiguous products
    cards: Any  # (groups,) int64: cards the multiset holds (4, 5 or 6)
    entry_group: Any  # (entries,) int64, entries sorted by key
    entry_count: Any  # (entries,) int64: ordered value sequences of the group giving the key
    starts: Any  # (keys,) int64: where each key's entries start
    keys: tuple[int, ...]  # the value keys (station.game.analysis.tree.key_index) that occur


@lru_cache(maxsize=1)
def value_tree() -> _Tree:
    """Every round of the tableau by value, grouped by multiset: about 0.1 s, once."""
    groups: dict[tuple[int, ...], dict[int, int]] = defaultdict(lambda: defaultdict(int))

    def add(values: tuple[int, ...], key: int, ways: int) -> None:
        m = [0] * 10
        for v in values:
            m[v] += 1
        groups[tuple(m)][key] += ways

    # Each hand's first two as an unordered pair, counted twice when they differ: the weight
    # of a deal depends on its multiset only.
    for p1 in _VALUES:
        for p2 in range(p1, 10):
            for b1 in _VALUES:
                for b2 in range(b1, 10):
                    ways = (1 if p1 == p2 else 2) * (1 if b1 == b2 else 2)
                    four = (p1, p2, b1, b2)
                    pt2, bt2 = (p1 + p2) % 10, (b1 + b2) % 10
                    if not player_draws(pt2, bt2):
                        if banker_draws(pt2, bt2, None):
                            for b3 in _VALUES:
                                add((*four, b3), key_index(pt2, (bt2 + b3) % 10, 2, 3), ways)
                        else:
                            add(four, key_index(pt2, bt2, 2, 2), ways)
                        continue
                    for p3 in _VALUES:
                        pt = (pt2 + p3) % 10
                        if banker_draws(pt2, bt2, p3):
                            for b3 in _VALUES:
                                add((*four, p3, b3), key_index(pt, (bt2 + b3) % 10, 3, 3), ways)
                        else:
                            add((*four, p3), key_index(pt, bt2, 3, 2), ways)
    multisets = list(groups)
    factors = []
    for m in multisets:
        row = [v * FALLS + n for v, n in enumerate(m) if n]
        factors.append(row + [0] * (ROUND_CARDS - len(row)))
    entries = sorted((key, g, n) for g, m in enumerate(multisets) for key, n in groups[m].items())
    keys = sorted({key for key, _, _ in entries})
    first: dict[int, int] = {}
    for i, (key, _, _) in enumerate(entries):
        first.setdefault(key, i)
    return _Tree(
        factors=np.ascontiguousarray(np.array(factors, dtype=np.int64).T),
        cards=np.array([sum(m) for m in multisets], dtype=np.int64),
        entry_group=np.array([g for _, g, _ in entries], dtype=np.int64),
        entry_count=np.array([n for _, _, n in entries], dtype=np.int64),
        starts=np.array([first[k] for k in keys], dtype=np.int64),
        keys=tuple(keys),
    )


FALLS: Final = ROUND_CARDS + 1  # falling(c, 0) .. falling(c, 6)
_STEPS: Final = np.arange(ROUND_CARDS, dtype=np.int64)
# (10, 52): which cards count each value, so the value counts are one product.
_BY_VALUE: Final = (np.arange(10)[:, None] == np.array(_VALUE_OF)[None, :]).astype(np.int64)


def value_counts(counts: Sequence[int]) -> list[int]:
    """Cards of each baccarat value 0-9 in the composition."""
    out = [0] * 10
    for i, n in enumerate(counts):
        out[_VALUE_OF[i]] += n
    return out


def key_weights(counts: Sequence[int]) -> tuple[tuple[int, ...], Any, int]:
    """(value keys, their integer weights as int64, total = ordered six-card draws).

    The weights add up to ``falling(n, 6)`` for ``n`` cards, padding a round of four or
    five cards with the unused draws, as ``station.game.analysis.tree.round_weights`` does."""
    tree = value_tree()
    c = _BY_VALUE @ np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    # falling(c, m) for m = 0..6: a running product of c, c-1, ...; it stays 0 once a factor
    # is 0, so a value with fewer cards than asked for weighs nothing.
    fall = np.ones((10, FALLS), dtype=np.int64)
    np.cumprod(np.maximum(c[:, None] - _STEPS, 0), axis=1, out=fall[:, 1:])
    pad = np.array([falling(n - k, ROUND_CARDS - k) for k in range(FALLS)], dtype=np.int64)
    f = fall.ravel()[tree.factors]
    # Six row products (a reduction along the short axis of (groups, 6) was twice as slow).
    w = f[0] * f[1]
    for row in f[2:]:
        w *= row
    w *= pad[tree.cards]
    sums = np.add.reduceat(w[tree.entry_group] * tree.entry_count, tree.starts)
    return tree.keys, sums, falling(n, ROUND_CARDS)


# --- representatives of the two card groups ----------------------------------------------
def _cards(*codes: str) -> tuple[Card, ...]:
    return tuple(parse_card(c) for c in codes)


# (Player's two, Banker's two) for each pair-structure class: no pair, a pair of two suits,
# a same-suit pair, for each hand; last, four equal cards.
_PAIR_CLASSES: Final = (
    ("00", _cards("2S", "3H"), _cards("5D", "6C")),
    ("10", _cards("2S", "2H"), _cards("5D", "6C")),
    ("20", _cards("2S", "2S"), _cards("5D", "6C")),
    ("01", _cards("2S", "3H"), _cards("7D", "7C")),
    ("02", _cards("2S", "3H"), _cards("9H", "9H")),
    ("11", _cards("2S", "2H"), _cards("7D", "7C")),
    ("12", _cards("2S", "2H"), _cards("9H", "9H")),
    ("21", _cards("2S", "2S"), _cards("7D", "7C")),
    ("22", _cards("2S", "2S"), _cards("9H", "9H")),
    ("ii", _cards("2S", "2S"), _cards("2S", "2S")),
)
_HANDS: Final = tuple((a, b) for a in ALL_CARDS for b in ALL_CARDS)  # index a*52 + b


def _f2(x: Any) -> Any:
    return x * (x - 1)


def _f4(x: Any) -> Any:
    return x * (x - 1) * (x - 2) * (x - 3)


def pair_class_weights(counts: Sequence[int]) -> tuple[list[int], int]:
    """Ordered ways to draw the first four cards in each of ``_PAIR_CLASSES``, and all of
    them (``falling(n, 4)``). Positions are exchangeable, so "Player's two are a pair and
    Banker's two are a pair" is counted by rank (``R``) and by card (``N``) in closed form:
    both from one rank, ``F4(R_r)``, or from two, ``F2(R_r) F2(R_s)``."""
    cards = np.array(counts, dtype=np.int64)
    ranks = cards.reshape(4, 13).sum(axis=0)  # Card.index = suit * 13 + rank
    n = int(cards.sum())
    fr, fx = _f2(ranks), _f2(cards)
    ar, ax = int(fr.sum()), int(fx.sum())
    rank_of_card = np.array(_RANK_OF, dtype=np.int64)
    r_of_x = ranks[rank_of_card]
    jrr = int(_f4(ranks).sum()) + ar * ar - int((fr * fr).sum())
    ident = int(_f4(cards).sum())
    jxx = ident + ax * ax - int((fx * fx).sum())
    # Player a same-suit pair of card x, Banker any pair: x's rank has two fewer cards.
    jxr = int((fx * (ar - _f2(r_of_x) + _f2(r_of_x - 2))).sum())
    rest = _f2(n - 2)
    mr, mx = ar * rest, ax * rest
    w10 = mr - mx - jrr + jxr
    w20 = mx - jxr
    w21 = jxr - jxx
    w11 = jrr - 2 * jxr + jxx
    total = falling(n, 4)
    known = [w10, w20, w10, w20, w11, w21, w21, jxx - ident, ident]
    return [total - sum(known), *known], total


# --- the analyzer -------------------------------------------------------------------------
def _returns(bet: Bet, outcomes: Sequence[RoundOutcome]) -> tuple[list[int], int]:
    """Each outcome's return per unit staked (1 + payout on a win, 1 on a push, 0 on a loss)
    as integers over one common denominator."""
    settled: list[Settled] = [settle_bet(bet, o) for o in outcomes]
    den = 1
    for s in settled:
        den = math.lcm(den, s.pays.denominator)
    out = []
    for s in settled:
        if s.result == LOSE:
            out.append(0)
        elif s.result == PUSH:
            out.append(den)
        else:
            out.append(int((1 + s.pays) * den))
    return out, den


def _group(paytable: Paytable, bet: Bet) -> str:
    group = group_of(bet)
    if group is not None:
        return group
    raise ConfigError(
        f"{paytable.path}: bet {bet.key!r}: kind {bet.kind!r}: the shoe-composition analysis "
        "cannot value it; set table.bet_guard: off for this paytable"
    )


class CompositionAnalyzer:
    """Every bet of one paytable for any composition; the per-paytable work done once.

    Raises ``ConfigError`` for a bet it cannot value (see ``_group``)."""

    def __init__(self, paytable: Paytable) -> None:
        self.paytable = paytable
        groups: dict[str, list[Bet]] = {"values": [], "hand": [], "pairs": []}
        for bet in paytable.bets:
            groups[_group(paytable, bet)].append(bet)
        self._values = groups["values"]
        self._hand = groups["hand"]
        self._pairs = groups["pairs"]
        tree = value_tree()
        self._value_outcomes = [value_round(k) for k in tree.keys]
        self._hand_outcomes = [decide(h, h) for h in _HANDS]  # each side reads its own two
        self._pair_outcomes = [decide(p, b) for _, p, b in _PAIR_CLASSES]
        self._v_coef, self._v_den = self._matrix(self._values, self._value_outcomes)
        self._h_coef, self._h_den = self._matrix(self._hand, self._hand_outcomes)
        self._p_coef, self._p_den = self._matrix(self._pairs, self._pair_outcomes)
        # Two 27-bit limbs of a weight times a return, summed over 400 keys, stay in int64
        # while every return is under 2**27 (a payout of 10,000 over a denominator of 13,000).
        self._v_exact_int64 = _biggest(self._v_coef) * len(tree.keys) < 2 ** (63 - _LIMB)
        # A two-card hand weighs at most DECKS_MAX ** 2; 2,704 of them.
        self._h_exact_int64 = _biggest(self._h_coef) * DECKS_MAX**2 * len(_HANDS) < 2**63

    @staticmethod
    def _matrix(bets: Sequence[Bet], outcomes: Sequence[RoundOutcome]) -> tuple[Any, list[int]]:
        cols, dens = [], []
        for bet in bets:
            col, den = _returns(bet, outcomes)
            cols.append(col)
            dens.append(den)
        coef = np.array(cols, dtype=np.int64).T if cols else np.zeros((len(outcomes), 0),
                                                                       dtype=np.int64)
        return coef, dens

    def rtp(self, counts: Sequence[int]) -> dict[str, Fraction]:
        """Every bet's exact return to player (1 + expected net per unit staked) on the next
        round dealt from ``counts``, in paytable order. ``ValueError`` for a composition
        ``check_counts`` refuses."""
        return {k: Fraction(num, den) for k, (num, den) in self.rtp_ratios(counts).items()}

    def rtp_ratios(self, counts: Sequence[int]) -> dict[str, tuple[int, int]]:
        """``rtp`` as (numerator, denominator), not reduced: what the bet guard compares and
        rounds, without building 42 ``Fraction``s at every betting opening."""
        check_counts(counts)
        out: dict[str, tuple[int, int]] = {}
        if self._values:
            _, kw, total = key_weights(counts)
            if self._v_exact_int64:
                lo = kw & ((1 << _LIMB) - 1)
                hi = kw >> _LIMB
                nums = [(int(h) << _LIMB) + int(lo_)
                        for h, lo_ in zip(hi @ self._v_coef, lo @ self._v_coef, strict=True)]
            else:  # an exotic payout (many decimals): Python integers, slower but exact
                nums = _python_dot(kw, self._v_coef)
            for bet, num, den in zip(self._values, nums, self._v_den, strict=True):
                out[bet.key] = (num, den * total)
        if self._hand:
            cards = np.array(counts, dtype=np.int64)
            hands = (np.outer(cards, cards) - np.diag(cards)).ravel()
            total = falling(int(cards.sum()), 2)
            if self._h_exact_int64:
                nums = [int(x) for x in hands @ self._h_coef]
            else:  # an exotic payout: Python integers
                nums = _python_dot(hands, self._h_coef)
            for bet, num, den in zip(self._hand, nums, self._h_den, strict=True):
                out[bet.key] = (num, den * total)
        if self._pairs:
            weights, total = pair_class_weights(counts)
            for bet, col, den in zip(self._pairs, self._p_coef.T, self._p_den, strict=True):
                num = sum(w * int(c) for w, c in zip(weights, col, strict=True))
                out[bet.key] = (num, den * total)
        return {b.key: out[b.key] for b in self.paytable.bets}

    def analyze(self, counts: Sequence[int], decks: int = 0) -> PaytableAnalysis:
        """The full figures (win, push, lose by payout) of every bet for ``counts``, as
        ``station.game.analysis.analyze`` gives them for a full shoe; ``decks`` is only carried
        into the result. Slower than ``rtp`` (settles each class with Fractions)."""
        check_counts(counts)
        found: dict[str, BetAnalysis] = {}
        if self._values:
            _, kw, total = key_weights(counts)
            classes = [(o, int(w)) for o, w in zip(self._value_outcomes, kw, strict=True) if w]
            found.update(tally(self._values, classes, total))
        if self._hand:
            hands = [(o, counts[a.index] * (counts[b.index] - (a is b)))
                     for o, (a, b) in zip(self._hand_outcomes, _HANDS, strict=True)]
            n = sum(counts)
            found.update(tally(self._hand, [(o, w) for o, w in hands if w], falling(n, 2)))
        if self._pairs:
            weights, total = pair_class_weights(counts)
            classes = [(o, w) for o, w in zip(self._pair_outcomes, weights, strict=True) if w]
            found.update(tally(self._pairs, classes, total))
        return PaytableAnalysis(self.paytable.name, decks,
                                tuple(found[b.key] for b in self.paytable.bets))


def _biggest(coef: Any) -> int:
    return max((int(x) for x in coef.ravel()), default=0)


def _python_dot(weights: Any, coef: Any) -> list[int]:
    """``weights @ coef`` in Python integers, for returns too large for int64 sums."""
    ws = [int(x) for x in weights]
    return [sum(w * int(c) for w, c in zip(ws, col, strict=True) if w) for col in coef.T]


def counts_from_codes(remaining: Mapping[str, int]) -> list[int]:
    """A composition from ``{code: count}`` (codes as ``parse_card`` reads them; a code
    absent counts 0). ``ValueError`` for a code twice under two spellings."""
    out = [0] * DECK_SIZE
    seen: dict[int, str] = {}
    for code, n in remaining.items():
        card = parse_card(code)
        if card.index in seen:
            raise ValueError(f"{code!r} and {seen[card.index]!r} are the same card")
        seen[card.index] = code
        out[card.index] = n
    return out
