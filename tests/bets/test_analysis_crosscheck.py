"""Settlement and exact analysis checked against each other over a seeded simulation.

The first test deals rounds with a small pure helper (shuffled 8-deck shoes,
``station.game.rules`` for every draw); the second checks the records the station publishes when
the machine deals simulated shoes, as ``station simulate`` does. Each bet's observed return
must lie in the interval the exact figures predict around the exact return (exact standard
deviation, not the sample's, which is too small when a rare big payout has not come up
yet); with ~60 bets checked at once the interval is widened (Bonferroni) so that the whole
test fails by chance about once in a hundred seeds.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

from drivers.simulated import SimulatedDealer, random_shoes
from station.game.analysis import analyze
from station.game.cards import ALL_CARDS, Card
from station.game.outcome import RoundOutcome, decide
from station.game.rules import banker_draws, player_draws
from station.game.settlement import settle
from station.game.stats import BetStats, format_summary
from station.settings.paytable import load_paytable
from station.table.outputs import Output, Published
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"
# CI deals fewer rounds (the hand-worked oracles in tests/bets/test_oracle_*.py pin the rules);
# STATION_LONG_TESTS=1 deals the full sample.
LONG = os.environ.get("STATION_LONG_TESTS") == "1"
ROUNDS = 40_000 if LONG else 15_000
SHOES = 250 if LONG else 100
SEED = 20240603
FAMILY_WISE_ERROR = 0.01


def rounds_from_shoes(
    seed: int, count: int, decks: int = 8, cut: int = 14
) -> Iterator[RoundOutcome]:
    """``count`` rounds dealt by the tableau from shuffled shoes of ``decks`` decks."""
    rng = random.Random(seed)
    shoe: list[Card] = []
    pos = 0
    for _ in range(count):
        if len(shoe) - pos < cut:
            shoe = list(ALL_CARDS) * decks
            rng.shuffle(shoe)
            pos = 0
        p, b = [shoe[pos], shoe[pos + 2]], [shoe[pos + 1], shoe[pos + 3]]
        pos += 4
        pt2, bt2 = (p[0].value + p[1].value) % 10, (b[0].value + b[1].value) % 10
        third = None
        if player_draws(pt2, bt2):
            p.append(shoe[pos])
            pos += 1
            third = p[2].value
        if banker_draws(pt2, bt2, third):
            b.append(shoe[pos])
            pos += 1
        yield decide(tuple(p), tuple(b))


def test_observed_returns_match_exact_returns() -> None:
    tables = [
        load_paytable(PAYTABLES / "seed000.yaml", ["no_commission", "tie_9_to_1"]),
        load_paytable(PAYTABLES / "seed003.yaml"),
    ]
    stats = [BetStats() for _ in tables]
    for outcome in rounds_from_shoes(SEED, ROUNDS):
        for table, st in zip(tables, stats, strict=True):
            st.add({"status": "complete", "bets": settle(table, outcome)})
    checked = sum(len(t.bets) for t in tables)
    confidence = 1 - FAMILY_WISE_ERROR / checked
    for table, st in zip(tables, stats, strict=True):
        analysis = analyze(table)
        assert st.complete == ROUNDS
        assert set(st.keys) == set(table.keys)
        assert st.outside(analysis, confidence) == [], format_summary(st, analysis, confidence)


def test_station_simulate_records_match_exact_returns() -> None:
    """The same check on the records the station itself publishes, dealt by the machine."""
    table = load_paytable(PAYTABLES / "seed003.yaml")
    stats = BetStats(only_open=False)
    opened: dict[int, list[str]] = {}

    def collect(outputs: list[Output]) -> None:
        for o in outputs:
            if isinstance(o, Published):
                stats.add(o.record)
                opened[o.record["round"]] = o.record["open_bets"]

    station = Station(TableRules(), table, prompts=False)
    simulate(station, SimulatedDealer(random_shoes(SEED, SHOES)), collect)
    assert stats.complete > SHOES * 76
    assert set(stats.keys) == set(table.keys)
    # Cut-offs (RULES.md 5): every bet is open in round 1; a cut-off N closes after round N.
    assert opened[1] == list(table.keys)
    for n in (30, 40, 50):
        cut = {b.key for b in table.bets if b.cutoff_round == n}
        assert cut and cut <= set(opened[n]) and not cut & set(opened[n + 1])
    confidence = 1 - FAMILY_WISE_ERROR / len(table.bets)
    analysis = analyze(table)
    assert stats.outside(analysis, confidence) == [], format_summary(stats, analysis, confidence)
