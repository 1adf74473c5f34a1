"""Benchmark of shoe integrity (issue 11): what the report and the repeat watch cost.

    .venv/bin/python benchmarks/bench_integrity.py [--shoes 20] [--repeat 15] [--compares 2000]
        [--fresh 10000]

1. Per card: the events of the same seeded shoes (recorded once from the simulated table)
   applied to a station without prompts, with its ``ShoeIntegrity`` and with a stand-in that
   does nothing, interleaved, best of ``--repeat`` each; the difference per card read is what
   integrity adds (its ``after`` on every event, the ``collecting`` flag on every counted
   card, 30 cards into the watch per shoe, one report per shoe). ``after`` is also timed
   alone, on an event that changes nothing, which the noise of a shared machine cannot hide.
2. One comparison of a shoe's first 30 cards after the burn against 100 kept shoes: fresh
   shoes (the bound settles nearly all) and the worst case (every kept shoe a near-repeat,
   so the LCS is computed 100 times).
3. With ``--fresh N``, no timing: the score of every comparison of N fresh shoes with the
   100 before each, the figure behind docs/integrity.md's "how far from an alarm".
Times are wall clock (``perf_counter_ns``) in one process.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from typing import Any

from drivers.events import CardRead, InputEvent
from drivers.simulated import CUT, SimulatedDealer, random_shoes, shuffled_shoe
from station.game.cards import ALL_CARDS, parse_card
from station.game.shoe import ShoeCounts
from station.table.integrity import (
    Pause,
    RepeatWatch,
    ShoeLog,
    lcs_length,
    multiset_bits,
    position_masks,
    shoe_report,
)
from station.table.outputs import Output
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules


class _NoWatch:
    collecting = False


class _NoIntegrity:
    """What the station did before issue 11's integrity: nothing."""

    watch = _NoWatch()
    match = None

    def after(self, *args: Any) -> None:
        return None

    def card(self, *args: Any) -> None:
        return None


def recorded(shoes: int) -> list[InputEvent]:
    """The events of ``shoes`` seeded shoes as the simulated table deals them."""
    events: list[InputEvent] = []
    simulate(Station(TableRules(), prompts=False),
             SimulatedDealer(random_shoes(1, shoes), supervisor="resume"), record=events.append)
    return events


def one_run(events: list[InputEvent], with_integrity: bool) -> float:
    """Seconds to apply ``events`` to a new station, with or without integrity."""
    station = Station(TableRules(), prompts=False)
    if not with_integrity:
        station.integrity = _NoIntegrity()  # type: ignore[assignment]
        station._watch = _NoWatch()  # type: ignore[assignment]
    apply = station.apply
    started = time.perf_counter_ns()
    for event in events:
        apply(event)
    return (time.perf_counter_ns() - started) / 1e9


def after_alone(n: int) -> float:
    """Nanoseconds of one ``ShoeIntegrity.after`` on an event that changes nothing (nearly
    every event): the station mid-round, no output."""
    station = Station(TableRules(), prompts=False)
    for event in recorded(1)[:20]:
        station.apply(event)
    after, d, event = station.integrity.after, station.dealing, recorded(1)[19]
    out: list[Output] = []
    started = time.perf_counter_ns()
    for _ in range(n):
        after(event, d, out)
    return (time.perf_counter_ns() - started) / n


def per_card(shoes: int, repeat: int) -> None:
    events = recorded(shoes)
    reads = sum(type(e) is CardRead for e in events)
    best = {True: float("inf"), False: float("inf")}
    for _ in range(repeat):
        for flag in (False, True):
            best[flag] = min(best[flag], one_run(events, flag))
    with_us, without_us = best[True] / reads * 1e6, best[False] / reads * 1e6
    print(f"{shoes} shoes, {reads} card reads, {len(events)} events; best of {repeat}")
    print(f"Station.apply per card read, without integrity: {without_us:.3f} us")
    print(f"Station.apply per card read, with integrity:    {with_us:.3f} us")
    print(f"integrity per card read: {with_us - without_us:+.3f} us "
          f"({(with_us / without_us - 1) * 100:+.1f}%)")
    print(f"ShoeIntegrity.after alone, per event: "
          f"{min(after_alone(200_000) for _ in range(3)):.0f} ns")
    print(f"one shoe report (a dealt shoe): {report_alone(2000):.1f} us")


def report_alone(n: int) -> float:
    """Microseconds to build the report of a whole dealt shoe (13 ranks, a few pauses)."""
    counts = ShoeCounts("s", 8)
    for card in ALL_CARDS * 7:
        counts.take(card)
    log = ShoeLog("s", 1_800_000_000.0, rounds={"complete": 80, "void": 1},
                  pauses=[Pause(1_800_000_100.0, ["card not due: 3S"], "void", "sup")] * 3)
    started = time.perf_counter_ns()
    for _ in range(n):
        shoe_report(log, counts, 1_800_003_000.0)
    return (time.perf_counter_ns() - started) / 1000 / n


def _first30(rng: random.Random) -> list[int]:
    cards = list(range(52)) * 8
    rng.shuffle(cards)
    return cards[:30]


def compares(n: int) -> None:
    rng = random.Random(2)
    fresh = RepeatWatch()
    for i in range(100):
        fresh.begin(f"s{i}")
        for c in _first30(rng):
            fresh.add(c)
    probes = [_first30(rng) for _ in range(n)]
    samples = []
    for seq in probes:
        start = time.perf_counter_ns()
        fresh.compare(seq)
        samples.append((time.perf_counter_ns() - start) / 1000)
    print(f"compare with 100 kept fresh shoes: median {statistics.median(samples):.1f} us, "
          f"max {max(samples):.1f} us ({fresh.lcs_computed} LCS computed in {n} compares)")
    # The station's path (issue 13): ``add`` counts the bound for every kept shoe as each
    # card comes; the N-th card reads the slots that reached the threshold; ``begin`` (the
    # next shoe's start, a command) files the shoe into the index.
    cards: list[float] = []
    nth: list[float] = []
    begins: list[float] = []
    for seq in probes[:max(1, n // 10)]:
        start = time.perf_counter_ns()
        fresh.begin("probe")
        begins.append((time.perf_counter_ns() - start) / 1000)
        for i, c in enumerate(seq):
            start = time.perf_counter_ns()
            fresh.add(c)
            (nth if i == len(seq) - 1 else cards).append((time.perf_counter_ns() - start) / 1000)
    print(f"the station's path with 100 kept: add, cards 1-29 median "
          f"{statistics.median(cards):.2f} us, the 30th median {statistics.median(nth):.1f} us "
          f"(max {max(nth):.1f}); begin (files the last shoe) median "
          f"{statistics.median(begins):.1f} us")
    base = _first30(rng)
    worst = RepeatWatch()
    for i in range(100):
        near = list(base)
        near[i % 30] = (near[i % 30] + 1) % 52  # one card replaced: every kept shoe repeats
        worst.begin(f"w{i}")
        for c in near:
            worst.add(c)
    samples = []
    for _ in range(max(1, n // 10)):
        start = time.perf_counter_ns()
        found = worst.compare(base)
        samples.append((time.perf_counter_ns() - start) / 1000)
    assert found is not None
    print(f"compare with 100 kept near-repeats (LCS every time): median "
          f"{statistics.median(samples):.1f} us")
    masks, other = position_masks(base), _first30(rng)
    start = time.perf_counter_ns()
    for _ in range(n):
        lcs_length(masks, 30, other)
    lcs_us = (time.perf_counter_ns() - start) / 1000 / n
    a, b = multiset_bits(base, 30), multiset_bits(other, 30)
    start = time.perf_counter_ns()
    for _ in range(n):
        _ = (a & b).bit_count() < 20
    bound_us = (time.perf_counter_ns() - start) / 1000 / n
    print(f"one LCS of 30 x 30: {lcs_us:.2f} us; one multiset bound: {bound_us:.3f} us")


def fresh_scores(shoes: int) -> None:
    """The score of every comparison of ``shoes`` fresh 8-deck shoes (the simulated table's
    shuffle and burn, as tests/core/test_integrity.py deals them) with the 100 before each: how
    far below the threshold fresh shoes stay."""
    rng = random.Random(20261201)
    kept: list[tuple[int, tuple[int, ...]]] = []
    scores: Counter[int] = Counter()
    over_bound = 0
    for _ in range(shoes):
        tokens = [x for x in shuffled_shoe(rng) if x != CUT]
        burn = 1 + parse_card(tokens[0]).burn_count
        seq = [parse_card(c).index for c in tokens[burn:burn + 30]]
        bits = multiset_bits(seq, 30)
        for other_bits, masks in kept[-100:]:
            over_bound += (other_bits & bits).bit_count() >= 20
            scores[lcs_length(masks, 30, seq)] += 1
        kept.append((bits, position_masks(seq)))
    total = sum(scores.values())
    print(f"fresh shoes: {shoes}, comparisons: {total}, highest score: {max(scores)}, "
          f"multiset bound >= 20: {over_bound}")
    print("score distribution: " + ", ".join(f"{k}: {v}" for k, v in sorted(scores.items())))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shoes", type=int, default=20)
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--compares", type=int, default=2000)
    p.add_argument("--fresh", type=int, default=0,
                   help="also score N fresh shoes against the 100 before each (no timing)")
    args = p.parse_args()
    per_card(args.shoes, args.repeat)
    compares(args.compares)
    if args.fresh:
        fresh_scores(args.fresh)


if __name__ == "__main__":
    main()
