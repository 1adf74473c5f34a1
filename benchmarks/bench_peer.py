"""``station simulate`` against PyBaccarat as shipped (issue 35), side by side in one process.

    .venv/bin/python benchmarks/bench_peer.py --peer DIR [--shoes 100] [--reps 5]

Without ``--peer`` it times the station's half alone.

DIR is a checkout of PyBaccarat's source (fulkgl/PyBaccarat, v0.22): its 0.18 on PyPI
imports ``msvcrt`` and does not install on Linux, so the checkout is put first on
``sys.path`` of this process only (never vendored, never a dependency of the station).

Both deal ``--shoes`` shuffled 8-deck shoes, one after the other, ``--reps`` times in turn
(A B A B ...), each timed by this thread's CPU clock, so a slow spell of the shared machine
hits both alike; the figure is rounds per CPU second, median (min-max), and their ratio rep
by rep.

- PyBaccarat: its own full-shoe loop, ``Game.play`` (shuffle, burn, deal by the tableau, its
  four scoreboards, its tie tracker, its running counts and one printed line per hand,
  which is how it ships: ``display=False`` fails on the burn's display string), printed to
  a discarded buffer. It validates nothing and settles no bet.
- the station: what ``station simulate --shoes N --out FILE`` runs (station.commands.
  simulate): the simulated dealer's shoes through the full dealing machine (every card's
  code parsed, checked against the shoe and the tableau, deduped), the seed 000 paytable's
  14 bets settled on every round and each round's record written as a JSON line.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def peer_rounds(game: Any, shoe: Any, shoes: int, seed: int) -> int:
    """Rounds PyBaccarat's Game.play dealt over ``shoes`` shoes (each shuffled afresh)."""
    random.seed(seed)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        for _ in range(shoes):
            shoe.shuffle()
            game.play()
    # One printed line per hand, starting with its two-digit number.
    return sum(1 for line in sink.getvalue().splitlines() if line[:2].isdigit()
               and line[2:3] == " ")


def station_rounds(shoes: int, seed: int, out: Path) -> int:
    from drivers.simulated import SimulatedDealer, random_shoes  # noqa: PLC0415
    from station.settings.paytable import load_paytable  # noqa: PLC0415
    from station.table.outputs import Output, Published  # noqa: PLC0415
    from station.table.simulation import simulate  # noqa: PLC0415
    from station.table.station import Station  # noqa: PLC0415
    from station.table.tablerules import TableRules  # noqa: PLC0415
    from station.upstream.sinks import ResultsWriter  # noqa: PLC0415

    rules = TableRules()
    station = Station(rules, load_paytable(REPO / "config" / "paytables" / "seed000.yaml"),
                      prompts=False)
    station.prepare()
    with out.open("w", encoding="utf-8") as f:
        sink = ResultsWriter(f)

        def on_outputs(outputs: list[Output]) -> None:
            for o in outputs:
                if type(o) is Published:
                    sink.write(o.record)

        end = simulate(station, SimulatedDealer(random_shoes(seed, shoes, rules.decks)),
                       on_outputs)
    return end.rounds


def timed(run: Any) -> tuple[float, int]:
    started = time.thread_time()
    rounds = run()
    return time.thread_time() - started, rounds


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} ({min(values):,.0f}-{max(values):,.0f})"


def station_only(shoes: int, reps: int) -> None:
    """The station's half alone: no peer was given (CI has no checkout of PyBaccarat)."""
    out = Path(os.devnull)
    station_rounds(2, 99, out)
    rates = []
    for rep in range(reps):
        cpu, rounds = timed(lambda rep=rep: station_rounds(shoes, rep, out))
        rates.append(rounds / cpu)
    print(f"station simulate: {spread(rates)} rounds per CPU second")
    print("PyBaccarat: not measured (give --peer DIR, a checkout of it)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", type=Path, default=None,
                    help="a checkout of PyBaccarat (v0.22): the folder holding pybaccarat/; "
                         "without it only the station's half runs (the suite's smoke run)")
    ap.add_argument("--shoes", type=int, default=100)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    if args.peer is None:
        station_only(args.shoes, args.reps)
        return
    if not (args.peer / "pybaccarat" / "baccarat.py").is_file():
        raise SystemExit(f"--peer {args.peer}: no pybaccarat/baccarat.py there; give the "
                         "folder of a PyBaccarat checkout")
    sys.path.insert(0, str(args.peer.resolve()))
    from pybaccarat.baccarat import Game  # type: ignore[import-not-found]  # noqa: PLC0415
    from pybaccarat.playingcards import Shoe  # type: ignore[import-not-found]  # noqa: PLC0415

    shoe = Shoe(8)
    game = Game(shoe=shoe)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, load {os.getloadavg()[0]:.1f} at start; "
          f"{args.shoes} shoes a rep, {args.reps} reps")
    out = Path(os.devnull)
    station_rounds(2, 99, out)  # warm: imports and the process's tables
    peer_rounds(game, shoe, 2, 99)
    peer_rate, station_rate, ratios = [], [], []
    for rep in range(args.reps):
        p_cpu, p_rounds = timed(lambda rep=rep: peer_rounds(game, shoe, args.shoes, rep))
        s_cpu, s_rounds = timed(lambda rep=rep: station_rounds(args.shoes, rep, out))
        peer_rate.append(p_rounds / p_cpu)
        station_rate.append(s_rounds / s_cpu)
        ratios.append(station_rate[-1] / peer_rate[-1])
    print(f"PyBaccarat Game.play: {spread(peer_rate)} rounds per CPU second")
    print(f"station simulate: {spread(station_rate)} rounds per CPU second")
    print(f"station / PyBaccarat, rep by rep: median {statistics.median(ratios):.2f} "
          f"({min(ratios):.2f}-{max(ratios):.2f}); load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
