"""Benchmark the table modes (issue 11): what timers cost ``station simulate``, and what a
squeeze costs per card.

Each table deals the same seeded shoes through ``station.table.simulation.simulate`` (what
``station simulate`` runs, without a display): the standard table driven by its dealer is
the baseline; the others add the station's betting countdown (timer events, journaled like
any input), face-down dealing with reveals (squeeze, VIP) and the VIP player's requests. The
issue's target: timers add no more than 10% to simulate's throughput.

Per card: ``Station.apply`` of the card reads alone, timed one by one with this thread's CPU
clock, on a standard and on a squeeze table (the squeeze's extra work per card is its
visibility bookkeeping and the reveal phase's checks).

Every figure is CPU time (``time.thread_time``), median (min-max) over ``--runs`` runs,
interleaved so a slow spell of a shared machine hits every table alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from drivers.events import CardRead, InputEvent
from drivers.simulated import Player, SimulatedDealer, random_shoes
from station.table.outputs import Output
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules


@dataclass(frozen=True)
class Table:
    name: str
    rules: TableRules
    player: Player = field(default_factory=Player)


TABLES = (
    Table("standard, dealer betting (baseline)", TableRules()),
    Table("standard, betting timer", TableRules(betting="timer")),
    Table("squeeze, betting timer, players reveal", TableRules(mode="squeeze", betting="timer")),
    Table("squeeze, betting timer, deadlines reveal", TableRules(mode="squeeze", betting="timer"),
          Player(reveal="timer")),
    Table("vip, dealer betting, skips and requests", TableRules(mode="vip"),
          Player(skip_rounds=(3, 4, 5), new_shoe_at=40, dealer_at=(2,))),
)


def one_run(table: Table, shoes: int, seed: int) -> tuple[float, int, list[float]]:
    """(CPU seconds, rounds, per-card apply seconds) of one simulated run."""
    station = Station(table.rules, prompts=False)
    dealer = SimulatedDealer(random_shoes(seed, shoes, 8), supervisor="resume",
                             player=table.player)
    started = time.thread_time()
    end = simulate(station, dealer)
    cpu = time.thread_time() - started
    return cpu, end.rounds, []


def per_card(table: Table, shoes: int, seed: int) -> list[float]:
    """CPU seconds of each card read's ``Station.apply`` in one run."""
    station = Station(table.rules, prompts=False)
    dealer = SimulatedDealer(random_shoes(seed, shoes, 8), supervisor="resume",
                             player=table.player)
    times: list[float] = []
    apply = station.apply
    clock = time.thread_time_ns

    def timed(event: InputEvent) -> list[Output]:
        if type(event) is CardRead:
            t0 = clock()
            out = apply(event)
            times.append((clock() - t0) / 1e9)
            return out
        return apply(event)

    station.apply = timed  # type: ignore[method-assign]
    simulate(station, dealer)
    return times


def spread(values: list[float], fmt: str) -> str:
    return (f"{fmt.format(statistics.median(values))} "
            f"({fmt.format(min(values))}-{fmt.format(max(values))})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shoes", type=int, default=200, help="shoes per run (default 200)")
    ap.add_argument("--runs", type=int, default=5, help="interleaved runs (default 5)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rates: dict[str, list[float]] = {t.name: [] for t in TABLES}
    for run in range(args.runs):
        for table in TABLES:
            cpu, rounds, _ = one_run(table, args.shoes, args.seed + run)
            rates[table.name].append(rounds / cpu if cpu > 0 else 0.0)
    base = statistics.median(rates[TABLES[0].name])
    print(f"simulate, {args.shoes} shoes x {args.runs} runs, rounds/s of CPU, median (min-max):")
    for table in TABLES:
        r = rates[table.name]
        cost = (base / statistics.median(r) - 1) * 100 if statistics.median(r) else 0.0
        print(f"  {table.name:45s} {spread(r, '{:,.0f}')}  cost vs baseline {cost:+.1f}%")
    print("Station.apply per card read, us (median, p99):")
    for table in (TABLES[0], TABLES[2]):
        samples: list[float] = []
        for run in range(args.runs):
            samples += per_card(table, max(1, args.shoes // 10), args.seed + run)
        samples.sort()
        p99 = samples[int(len(samples) * 0.99)] if samples else 0.0
        print(f"  {table.name:45s} {statistics.median(samples) * 1e6:.2f} us, "
              f"p99 {p99 * 1e6:.2f} us ({len(samples):,} reads)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
