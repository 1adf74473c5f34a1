"""Nothing a simulation keeps grows with the number of shoes (issue 13).

`station simulate --shoes 2000` must need no more memory than `--shoes 200`
(benchmarks/bench_speed.py measures both processes' peak). The property behind it is checked
here without timing anything: what the station, the dealer and the settlement keep after
the first shoes is what they keep many shoes later, allocation by allocation.
"""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

from drivers.simulated import SimulatedDealer, random_shoes
from station.game.settlement import Settler
from station.settings.paytable import load_paytable
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules
from tests.conftest import REPO

EARLY, LATE = 20, 120


STATION = REPO / "station" / "table" / "station.py"
# The shoe id's strftime: CPython keeps a small cache of its own there, a few KB at most.
STRFTIME = next(n for n, line in enumerate(STATION.read_text().splitlines(), 1)
                if "strftime(" in line)


def _kept(tables: list[Any]) -> int:
    """Bytes allocated by the station's own code and still alive, the settlement's class
    cache aside (it has its own bound: tests/bets/test_settlement_fast.py)."""
    snap = tracemalloc.take_snapshot().filter_traces([
        tracemalloc.Filter(True, str(REPO / "station" / "*")),
        tracemalloc.Filter(True, str(REPO / "drivers" / "*")),
        tracemalloc.Filter(False, str(REPO / "station" / "game" / "settlement.py")),
        tracemalloc.Filter(False, str(STATION), lineno=STRFTIME),
    ])
    tables.append(snap.statistics("filename"))
    return sum(s.size for s in snap.statistics("filename"))


def _kept_after(shoes: int, stats: list[Any]) -> int:
    """Play ``shoes`` shoes; what the station and the dealer keep once they are played."""
    paytable = load_paytable(REPO / "config" / "paytables" / "seed000.yaml")
    # The repeat watch keeps the first cards of the last repeat_history shoes (about 1.4 KB
    # each, bounded: tests/core/test_integrity.py); 10 of them are kept before EARLY shoes.
    station = Station(TableRules(repeat_history=10), paytable, prompts=False)
    dealer = SimulatedDealer(random_shoes(2, shoes))
    tracemalloc.start()
    try:
        end = simulate(station, dealer)
        gc.collect()
        kept = _kept(stats)
    finally:
        tracemalloc.stop()
    assert end.rounds > 70 * shoes and isinstance(station.dealing.settler, Settler)
    return kept


def test_what_a_simulation_keeps_does_not_grow_with_the_shoes() -> None:
    stats: list[Any] = []
    early, late = _kept_after(EARLY, stats), _kept_after(LATE, stats)
    # A leak of one small object per shoe would be 100 objects (3 KB); of one per round,
    # 8,000.
    assert late - early < 1024, stats[-1][:5]
