"""The exact analysis for any shoe composition (issue 25): today's figures for full shoes,
every ordered deal of small shoes enumerated by brute force, and the plain value tree on
depleted 8-deck shoes."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.game.analysis import analyze
from station.game.analysis.composition import (
    _PAIR_CLASSES,
    CompositionAnalyzer,
    check_counts,
    counts_from_codes,
    full_shoe,
    key_weights,
    pair_class_weights,
    value_counts,
)
from station.game.analysis.groups import ONE_HAND_KINDS, PAIR_KINDS
from station.game.analysis.tree import weights_for_values
from station.game.bets.model import LOSE, PUSH, Paytable
from station.game.bets.registry import KINDS, settle_bet
from station.game.cards import ALL_CARDS, Card, parse_card
from station.game.outcome import decide
from station.game.rules import banker_draws, player_draws
from station.settings.paytable import load_paytable
from tests.sampling import examples

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"
NAMES = ("seed000", "seed003")


@cache
def table(name: str, variants: tuple[str, ...] = ()) -> Paytable:
    return load_paytable(PAYTABLES / f"{name}.yaml", variants)


@cache
def analyzer(name: str, variants: tuple[str, ...] = ()) -> CompositionAnalyzer:
    return CompositionAnalyzer(table(name, variants))


@pytest.mark.parametrize("name", NAMES)
def test_a_full_8_deck_shoe_gives_todays_figures_exactly(name: str) -> None:
    today = analyze(table(name), 8)
    assert analyzer(name).analyze(full_shoe(8), 8) == today
    assert analyzer(name).rtp(full_shoe(8)) == {b.key: b.rtp for b in today.bets}


@pytest.mark.parametrize("variants", [("no_commission",), ("tie_9_to_1",)])
@pytest.mark.parametrize("decks", [1, 6])
def test_other_full_shoes_and_variants_too(variants: tuple[str, ...], decks: int) -> None:
    today = analyze(table("seed003", variants), decks)
    assert analyzer("seed003", variants).rtp(full_shoe(decks)) == {
        b.key: b.rtp for b in today.bets}


def test_every_first_two_kind_has_a_group() -> None:
    first_two = {k for k, spec in KINDS.items() if spec.reads == "first_two"}
    assert first_two == ONE_HAND_KINDS | PAIR_KINDS


def _deplete(rng: random.Random, decks: int, out: int) -> list[int]:
    counts = full_shoe(decks)
    for _ in range(out):
        live = [i for i, n in enumerate(counts) if n]
        counts[rng.choice(live)] -= 1
    return counts


@pytest.mark.parametrize("seed", range(3))
def test_value_weights_equal_the_plain_tree_walk(seed: int) -> None:
    rng = random.Random(seed)
    counts = _deplete(rng, 8, rng.randrange(50, 380))
    keys, weights, total = key_weights(counts)
    plain = weights_for_values(value_counts(counts))
    assert dict(zip(keys, (int(w) for w in weights), strict=True)) == {
        k: w for k, w in enumerate(plain) if w}
    assert sum(plain) == total


def _brute(paytable: Paytable, counts: list[int]) -> dict[str, Fraction]:
    """Every ordered deal of the shoe, card by card, by the tableau; each bet settled on the
    round. Weights: ordered draws, a round of k cards padded to six draws."""
    c = list(counts)
    n = sum(c)
    types = [card for card in ALL_CARDS if c[card.index]]
    sums: dict[str, int] = defaultdict(int)
    dens: dict[str, int] = {}
    for bet in paytable.bets:
        dens[bet.key] = math.lcm(*(p.denominator for p in bet.pays.values()))

    def draw() -> list[tuple[Card, int]]:
        return [(t, c[t.index]) for t in types if c[t.index]]

    def settle(player: tuple[Card, ...], banker: tuple[Card, ...], w: int) -> None:
        k = len(player) + len(banker)
        pad = 1
        for i in range(6 - k):
            pad *= n - k - i
        outcome = decide(player, banker)
        for bet in paytable.bets:
            s = settle_bet(bet, outcome)
            d = dens[bet.key]
            ret = 0 if s.result == LOSE else d if s.result == PUSH else int((1 + s.pays) * d)
            sums[bet.key] += w * pad * ret

    def take(card: Card) -> None:
        c[card.index] -= 1

    def back(card: Card) -> None:
        c[card.index] += 1

    for p1, w1 in draw():
        take(p1)
        for b1, w2 in draw():
            take(b1)
            for p2, w3 in draw():
                take(p2)
                for b2, w4 in draw():
                    take(b2)
                    w = w1 * w2 * w3 * w4
                    pt = (p1.value + p2.value) % 10
                    bt = (b1.value + b2.value) % 10
                    if not player_draws(pt, bt):
                        if banker_draws(pt, bt, None):
                            for b3, w6 in draw():
                                settle((p1, p2), (b1, b2, b3), w * w6)
                        else:
                            settle((p1, p2), (b1, b2), w)
                    else:
                        for p3, w5 in draw():
                            take(p3)
                            if banker_draws(pt, bt, p3.value):
                                for b3, w6 in draw():
                                    settle((p1, p2, p3), (b1, b2, b3), w * w5 * w6)
                            else:
                                settle((p1, p2, p3), (b1, b2), w * w5)
                            back(p3)
                    back(b2)
                back(p2)
            back(b1)
        back(p1)
    total = 1
    for i in range(6):
        total *= n - i
    return {k: Fraction(v, dens[k] * total) for k, v in sums.items()}


# Small shoes: one to three decks with most cards removed (a brute-force walk of a whole deck
# is 52**6 deals). Chosen to hold what each kind looks for: same-rank pairs of two suits,
# same-card pairs (two or three decks), 4s and diamonds, both colours, naturals and draws.
SMALL_SHOES = {
    "one deck, 6 cards": (1, "4D 4S 9H KC 3D 5S"),
    "two decks, 6 kinds": (2, "4D 4D 4S KH KH 6C 3D 7S 7S"),
    "three decks, 5 kinds": (3, "4D 4D 4D 9S 9S TH TH TH 2C 6D 6D"),
    "two decks, 7 kinds": (2, "4D 4D 4H 8S 8S 7H QS QS 6H 5C"),
}


def _small(decks: int, codes: str) -> list[int]:
    counts = [0] * 52
    for code in codes.split():
        counts[parse_card(code).index] += 1
    assert max(counts) <= decks
    return counts


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shoe", list(SMALL_SHOES))
def test_every_bet_equals_brute_force_on_small_shoes(name: str, shoe: str) -> None:
    counts = _small(*SMALL_SHOES[shoe])
    brute = _brute(table(name), counts)
    fast = analyzer(name).rtp(counts)
    full = analyzer(name).analyze(counts)
    for key, exact in brute.items():
        assert fast[key] == exact, key  # exact Fractions: closer than any 1e-12
        assert next(b.rtp for b in full.bets if b.key == key) == exact, key


def test_the_small_shoes_reach_every_kind_s_paying_case() -> None:
    """The brute-force shoes are worth something only if bets win on them: every bet of
    seed 003 except the rarest totals wins on at least one of them."""
    never = set(table("seed003").keys)
    for shoe in SMALL_SHOES.values():
        never -= {k for k, r in analyzer("seed003").rtp(_small(*shoe)).items() if r > 0}
    assert never <= {"wu_dalang", "fire_7s", "tiger_tie", "lucky_7", "golden_8", "small_dragon",
                     "big_dragon", "heavenly_9", "dragon_tiger", "player_cha_shao",
                     "banker_cha_shao", "all_treasure", "small_buffalo", "big_buffalo"}, never


@pytest.mark.parametrize("bad, why", [
    ([8] * 51, "52 counts"),
    ([9] + [8] * 51, "AS: 9 copies"),
    ([-1] + [8] * 51, "AS: -1 copies"),
    ([1] * 5 + [0] * 47, "5 cards left"),
])
def test_a_composition_it_cannot_analyse_is_refused(bad: list[int], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_counts(bad)


def test_counts_from_codes() -> None:
    counts = counts_from_codes({"AS": 3, "10D": 2})
    assert counts[parse_card("AS").index] == 3 and counts[parse_card("TD").index] == 2
    assert sum(counts) == 5
    with pytest.raises(ValueError, match="same card"):
        counts_from_codes({"TD": 1, "10D": 1})


def _pair_class(p: tuple[Card, Card], b: tuple[Card, Card]) -> str:
    def status(h: tuple[Card, Card]) -> str:
        return "2" if h[0] == h[1] else "1" if h[0].rank == h[1].rank else "0"

    if p[0] == p[1] == b[0] == b[1]:
        return "ii"
    return status(p) + status(b)


@pytest.mark.parametrize("shoe", list(SMALL_SHOES))
def test_pair_class_weights_equal_every_first_four(shoe: str) -> None:
    """Each class on its own, also those no shipped bet tells apart (a same-suit pair against
    a pair of two suits, or against no pair)."""
    counts = _small(*SMALL_SHOES[shoe])
    c = list(counts)
    want: dict[str, int] = defaultdict(int)
    live = [card for card in ALL_CARDS if c[card.index]]

    def deal(cards: tuple[Card, ...], w: int) -> None:
        if len(cards) == 4:
            want[_pair_class((cards[0], cards[2]), (cards[1], cards[3]))] += w
            return
        for card in live:
            if c[card.index]:
                n = c[card.index]
                c[card.index] -= 1
                deal((*cards, card), w * n)
                c[card.index] += 1

    deal((), 1)
    weights, total = pair_class_weights(counts)
    names = [name for name, _, _ in _PAIR_CLASSES]
    assert dict(zip(names, weights, strict=True)) == {k: want.get(k, 0) for k in names}
    assert total == sum(want.values())


def test_payouts_of_many_decimals_are_summed_exactly_too(tmp_path: Path) -> None:
    """Returns over a denominator of 10**12 or 10**13 may overflow an int64 sum: the analyzer
    sums them in Python integers instead, and still equals today's full-shoe figures."""
    text = (PAYTABLES / "seed000.yaml").read_text()
    text = text.replace("pays: {win: 0.95}", "pays: {win: 0.950000000001}", 1)
    text = text.replace("pays: {win: 11}", "pays: {win: 11.0000000000007}", 1)
    path = tmp_path / "odd.yaml"
    path.write_text(text)
    odd = load_paytable(path)
    fast = CompositionAnalyzer(odd)
    assert not fast._v_exact_int64 and not fast._h_exact_int64  # the fallback is what is tested
    assert fast.rtp(full_shoe(8)) == {b.key: b.rtp for b in analyze(odd, 8).bets}
    counts = _small(*SMALL_SHOES["two decks, 7 kinds"])
    assert fast.rtp(counts) == _brute(odd, counts)


@settings(max_examples=examples(10), deadline=None)
@given(st.dictionaries(st.integers(0, 51), st.integers(1, 3), min_size=2, max_size=5)
       .filter(lambda d: sum(d.values()) >= 6))
def test_sampled_small_shoes_equal_brute_force(cards: dict[int, int]) -> None:
    """A sample of small shoes of up to three decks (a few card kinds, so the brute force
    stays cheap), both paytables."""
    counts = [cards.get(i, 0) for i in range(52)]
    for name in NAMES:
        assert analyzer(name).rtp(counts) == _brute(table(name), counts)
