"""The incremental bet guard (issue 35) against today's exact one over whole shoes: every
opening's published returns, alerts and closures are the ones the exact integers of
``CompositionAnalyzer.rtp_ratios`` give (the guard before issue 35, kept here as the oracle),
and the running shoe's kept sums are the composition's own at every card."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import station.game.analysis.estimate as estimate
from drivers.simulated import random_shoes
from station.game.analysis.composition import CompositionAnalyzer, pair_class_weights
from station.game.analysis.estimate import Estimate, over_limit, published_of
from station.game.analysis.running import RunningShoe
from station.game.betguard import BetGuard, Opening, published
from station.game.cards import parse_card
from station.settings.paytable import load_paytable
from tests.sampling import LONG

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"
SHOES = 12 if LONG else 2


def exact_opening(guard: BetGuard, alerted: set[str], closed: list[str],
                  open_bets: list[str], left: list[int]) -> Opening:
    """The guard's opening as it was before issue 35: every figure from the exact ratios."""
    if closed:
        open_bets[:] = [k for k in open_bets if k not in closed]
    if sum(left) < 6:
        return Opening({}, list(closed))
    exact = guard.analyzer.rtp_ratios(left)
    top, bottom = guard.limit.numerator, guard.limit.denominator
    alerts = []
    for key in open_bets:
        rtp = exact[key]
        if rtp[0] * bottom > top * rtp[1] and key not in alerted:
            alerted.add(key)
            alerts.append({"bet": key, "rtp": published(rtp)})
            if guard.mode == "close":
                closed.append(key)
    if guard.mode == "close" and alerts:
        open_bets[:] = [k for k in open_bets if k not in closed]
    return Opening({k: published(exact[k]) for k in open_bets}, list(closed), alerts)


def shoes_of(seed: int, count: int) -> list[list[int]]:
    return [[parse_card(c).index for c in shoe if c != "CUT"]
            for shoe in random_shoes(seed, count, 8)]


def compare(name: str, mode: str, max_rtp: float, seed: int, shoes: int) -> int:
    table = load_paytable(PAYTABLES / name)
    guard = BetGuard(table, mode, max_rtp)
    oracle = BetGuard(table, mode, max_rtp)
    rng = random.Random(seed)
    openings = 0
    for cards in shoes_of(seed, shoes):
        guard.new_shoe()
        alerted: set[str] = set()
        closed: list[str] = []
        drawn = [0] * 52
        taken = 0
        while taken < len(cards) - 11:
            # Between openings a round and sometimes a burn: 4 to 11 cards.
            for _ in range(rng.randint(4, 11)):
                drawn[cards[taken]] += 1
                taken += 1
            bets = [b.key for b in table.bets]
            got = guard.opening(list(bets), drawn, 8)
            want = exact_opening(oracle, alerted, closed, list(bets), [8 - n for n in drawn])
            assert got == want, (name, mode, taken)
            openings += 1
    return openings


@pytest.mark.parametrize("name", ["seed000.yaml", "seed003.yaml"])
@pytest.mark.parametrize(("mode", "max_rtp"), [("observe", 1.0), ("close", 0.99)])
def test_every_opening_of_whole_shoes_equals_the_exact_guard(name: str, mode: str,
                                                              max_rtp: float) -> None:
    assert compare(name, mode, max_rtp, seed=7, shoes=SHOES) > 50 * SHOES


def test_with_every_estimate_undecided_the_exact_integers_decide(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bound so wide that no float settles anything: every figure comes from the exact
    fallback, and is still the oracle's."""
    monkeypatch.setattr(estimate, "RELATIVE_ERROR", 1.0)
    assert compare("seed000.yaml", "close", 0.99, seed=3, shoes=1) > 50


def test_the_kept_sums_are_the_compositions_own_at_every_card() -> None:
    table = load_paytable(PAYTABLES / "seed003.yaml")
    analyzer = CompositionAnalyzer(table)
    running = RunningShoe(analyzer)
    (cards,) = shoes_of(5, 1)
    running.start([8] * 52)
    left = [8] * 52
    for n, index in enumerate(cards[:410]):
        running.take(index)
        left[index] -= 1
        assert running.left == left
        assert running.pair_weights() == pair_class_weights(left), n
        if n % 7 == 0:
            exact = analyzer.rtp_ratios(left)
            for key, got in running.rtp().items():
                num, den = exact[key]
                if isinstance(got, Estimate):
                    assert abs(got.value - num / den) <= 1e-13 * max(num / den, 1e-300)
                else:
                    assert got[0] * den == num * got[1], key
    with pytest.raises(ValueError, match="none left"):
        for _ in range(9):
            running.take(cards[0])


def test_an_estimate_near_a_boundary_or_the_limit_says_it_cannot_tell() -> None:
    from fractions import Fraction  # noqa: PLC0415

    assert published_of(Estimate(0.9894215)) is None  # a half of the sixth decimal
    assert published_of(Estimate(0.98942149)) == 0.989421
    limit = Fraction(1)
    assert over_limit(Estimate(1.0), limit, 1.0) is None
    assert over_limit(Estimate(1.0 + 1e-6), limit, 1.0) is True
    assert over_limit(Estimate(1.0 - 1e-6), limit, 1.0) is False
    assert over_limit((3, 2), limit, 1.0) is True and over_limit((1, 1), limit, 1.0) is False
