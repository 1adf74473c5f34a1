"""Benchmark ``station simulate`` through the full machine (issue 2).

Reports, for ``--shoes`` seeded shoes:
- rounds per second of the whole command (``station simulate --out FILE``) in a subprocess,
  best and median of ``--repeat`` runs;
- the per-card cost of ``Station.apply`` on card reads (median, p99), measured in-process;
- two reference points: a bare tableau dealer with no state machine and no checks (the floor
  any implementation pays in Python), and the cost of one trigger on a plain vs a locked
  ``transitions`` machine (why the station keeps one thread owning a plain machine).

Run pinned to one core, as the target is stated: ``taskset -c 0 .venv/bin/python
benchmarks/bench_simulate.py``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from transitions import Machine
from transitions.extensions import LockedMachine

from drivers.events import CardRead, InputEvent
from drivers.simulated import CUT, SimulatedDealer, random_shoes
from station.game.cards import parse_card
from station.game.rules import banker_draws, player_draws
from station.table.outputs import Output
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules


def cli_rounds_per_s(shoes: int, repeat: int, *extra: str) -> tuple[float, float, int]:
    exe = Path(sys.executable).parent / "station"
    rates = []
    rounds = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rounds.jsonl"
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([str(exe), "simulate", "--shoes", str(shoes), "--seed", "1",
                            "--out", str(out), *extra], check=True, capture_output=True)
            elapsed = time.perf_counter() - started
            rounds = sum(1 for _ in out.open())
            rates.append(rounds / elapsed)
    return max(rates), statistics.median(rates), rounds


def per_card_ns(shoes: int) -> tuple[float, float, int]:
    """Time Station.apply on each card read of a seeded simulation."""
    station = Station(TableRules())
    samples: list[int] = []
    apply = station.apply
    clock = time.perf_counter_ns

    def timed(event: InputEvent) -> list[Output]:
        if type(event) is CardRead:
            t0 = clock()
            out = apply(event)
            samples.append(clock() - t0)
            return out
        return apply(event)

    station.apply = timed  # type: ignore[method-assign]
    simulate(station, SimulatedDealer(random_shoes(1, shoes)))
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)], len(samples)


def bare_dealer_rounds_per_s(shoes: int) -> float:
    """Deal the same shoes with a hand-written loop: tableau only, no checks, no machine."""
    decks = [[parse_card(c) for c in shoe if c != CUT] for shoe in random_shoes(1, shoes)]
    cuts = [shoe.index(CUT) for shoe in random_shoes(1, shoes)]
    started = time.perf_counter()
    rounds = 0
    for cards, cut in zip(decks, cuts, strict=True):
        i = 1 + cards[0].burn_count
        while i + 6 <= len(cards):
            p = [cards[i], cards[i + 2]]
            b = [cards[i + 1], cards[i + 3]]
            i += 4
            pt, bt = (p[0].value + p[1].value) % 10, (b[0].value + b[1].value) % 10
            third = None
            if player_draws(pt, bt):
                p.append(cards[i])
                third = cards[i].value
                i += 1
            if banker_draws(pt, bt, third):
                b.append(cards[i])
                i += 1
            rounds += 1
            if i > cut:
                break
    return rounds / (time.perf_counter() - started)


class _Model:
    pass


def trigger_us(locked: bool, n: int = 100_000) -> float:
    cls = LockedMachine if locked else Machine
    model = _Model()
    cls(model=model, states=["a", "b"], initial="a", auto_transitions=False,
        transitions=[{"trigger": "go", "source": "a", "dest": "b"},
                     {"trigger": "go", "source": "b", "dest": "a"}])
    go = model.go  # type: ignore[attr-defined]
    started = time.perf_counter()
    for _ in range(n):
        go()
    return (time.perf_counter() - started) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shoes", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--triggers", type=int, default=100_000,
                        help="triggers timed for the transitions reference (default 100,000)")
    args = parser.parse_args()
    print(f"station simulate --shoes {args.shoes} --seed 1 --out FILE, whole command, "
          f"{args.repeat} runs (target >= 5,000 rounds/s):")
    for label, extra in (("with the seed000 bets (default)", ()), ("--no-bets", ("--no-bets",))):
        best, median, rounds = cli_rounds_per_s(args.shoes, args.repeat, *extra)
        print(f"  {label}: {rounds} rounds, rounds/s best {best:,.0f}, median {median:,.0f}")
    med_ns, p99_ns, cards = per_card_ns(args.shoes)
    print(f"  Station.apply per card read: median {med_ns / 1000:.1f} us, "
          f"p99 {p99_ns / 1000:.1f} us over {cards} cards")
    print(f"  bare tableau loop (no machine, no checks): "
          f"{bare_dealer_rounds_per_s(args.shoes):,.0f} rounds/s")
    print(f"  transitions trigger: plain {trigger_us(False, args.triggers):.1f} us, "
          f"locked {trigger_us(True, args.triggers):.1f} us")


if __name__ == "__main__":
    main()
