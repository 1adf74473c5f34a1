"""Benchmark of the exact analysis (issue 3): every bet of the largest paytable, suits included.

Target: ``station analyze`` on the largest paytable (seed 003, 42 bets) under 2 s.

    .venv/bin/python benchmarks/bench_analyze.py [--repeat 7] [--decks 8]

Reports medians of wall-clock times (``perf_counter``): the command end to end in a fresh
interpreter; ``analyze()`` in process, cold (caches cleared) and warm; and two baselines that
only enumerate the deal tree by value: a plain ordered enumeration of the first four cards
(written here, the "~0.3 s" of the issue) and the one the analyzer uses, which enumerates
each hand's first two cards as an unordered pair.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from station.game.analysis import analyze
from station.game.analysis import first_two as first_two_module
from station.game.analysis.tree import key_index, round_weights
from station.game.rules import banker_draws, player_draws
from station.settings.paytable import load_paytable

ROOT = Path(__file__).resolve().parents[1]
LARGEST = ROOT / "config" / "paytables" / "seed003.yaml"
TARGET_S = 2.0


def plain_value_tree(decks: int) -> list[int]:
    """Baseline: every ordered P, B, P, B value sequence, then the third cards."""
    c = [16 * decks] + [4 * decks] * 9
    n = 52 * decks
    acc = [0] * 400
    for p1 in range(10):
        w1 = c[p1]
        c[p1] -= 1
        for b1 in range(10):
            w2 = w1 * c[b1]
            c[b1] -= 1
            for p2 in range(10):
                w3 = w2 * c[p2]
                c[p2] -= 1
                for b2 in range(10):
                    w4 = w3 * c[b2]
                    c[b2] -= 1
                    if w4:
                        _thirds(acc, c, w4, (p1 + p2) % 10, (b1 + b2) % 10, n=n)
                    c[b2] += 1
                c[p2] += 1
            c[b1] += 1
        c[p1] += 1
    return acc


def _thirds(acc: list[int], c: list[int], w: int, pt: int, bt: int, *, n: int) -> None:
    if player_draws(pt, bt):
        for p3 in range(10):
            w5 = w * c[p3]
            if not w5:
                continue
            c[p3] -= 1
            if banker_draws(pt, bt, p3):
                for b3 in range(10):
                    acc[key_index((pt + p3) % 10, (bt + b3) % 10, 3, 3)] += w5 * c[b3]
            else:
                acc[key_index((pt + p3) % 10, bt, 3, 2)] += w5 * (n - 5)
            c[p3] += 1
    elif banker_draws(pt, bt, None):
        for b3 in range(10):
            acc[key_index(pt, (bt + b3) % 10, 2, 3)] += w * c[b3] * (n - 5)
    else:
        acc[key_index(pt, bt, 2, 2)] += w * (n - 4) * (n - 5)


def timed(
    fn: Callable[[], object], repeat: int, before: Callable[[], None] | None = None
) -> list[float]:
    out = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def command(decks: int) -> None:
    subprocess.run(
        [sys.executable, "-m", "station.cli", "analyze", str(LARGEST), "--decks", str(decks)],
        check=True,
        capture_output=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--decks", type=int, default=8)
    args = parser.parse_args()
    table = load_paytable(LARGEST)
    assert plain_value_tree(args.decks) == round_weights(args.decks)
    rows = [
        (
            f"`station analyze` seed003 ({len(table.bets)} bets), fresh process",
            timed(lambda: command(args.decks), args.repeat),
        ),
        (
            "`analyze()` in process, cold (caches cleared)",
            timed(
                lambda: analyze(table, args.decks),
                args.repeat,
                first_two_module._classes.cache_clear,
            ),
        ),
        ("`analyze()` in process, warm", timed(lambda: analyze(table, args.decks), args.repeat)),
        (
            "baseline: plain ordered value-only tree",
            timed(lambda: plain_value_tree(args.decks), args.repeat),
        ),
        (
            "value-only tree as the analyzer enumerates it",
            timed(lambda: round_weights(args.decks), args.repeat),
        ),
    ]
    print(f"{args.decks} decks, median of {args.repeat} runs; target < {TARGET_S:g} s end to end")
    print("| measure | median | min | max |")
    print("|---|---|---|---|")
    for name, samples in rows:
        print(
            f"| {name} | {statistics.median(samples):.3f} s | {min(samples):.3f} s "
            f"| {max(samples):.3f} s |"
        )
    verdict = "ok" if statistics.median(rows[0][1]) < TARGET_S else "SLOW"
    print(f"end to end: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
