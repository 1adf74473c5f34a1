"""Benchmark the targets of issue 13: simulate and replay rates, Station.apply per card,
settlement of a round, start-up, and memory over many shoes.

Every figure is CPU time (user + sys), which other work on a shared machine disturbs far
less than wall time: a child's own ``rusage`` (``os.wait4``) for whole commands, this
thread's CPU clock (``time.thread_time_ns``) for in-process timings. Each figure is given
as median (min-max) over ``--runs`` runs, interleaved so that a slow spell of the machine
hits every measure alike. Start-up is subtracted from the command rates by timing each
command twice, on 1 shoe and on ``--shoes`` shoes: rounds/s = extra rounds / extra CPU.

The yardstick is a plain Python shoe simulator written below (``--yardstick``): it shuffles
the same shoes and deals them by the tableau, writing one JSON line per round, and skips
everything the station does besides: no card codes parsed or checked against the shoe, no
dedupe, no state machine, no pauses, no bets, a short record.

``--quick`` runs every measure once, on tiny inputs (the CI smoke test); ``--tree DIR``
times the commands of another checkout (e.g. the commit before a change) with this one's
interpreter. Reference: one trigger of a plain ``transitions`` machine, in the same run (the
issue measured 7.4 us).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

TREE = [Path(__file__).resolve().parent.parent]  # set by --tree
PY = sys.executable


def child(argv: Sequence[str], tree: Path, out: Path | None = None) -> tuple[float, int]:
    """(CPU seconds, max RSS in KiB) of one child process run to its end."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    with open(out or os.devnull, "wb") as sink:
        proc = subprocess.Popen(list(argv), cwd=tree, env=env, stdout=sink,
                                stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def spread(values: list[float], fmt: str = "{:,.0f}") -> str:
    return (f"{fmt.format(statistics.median(values))} "
            f"({fmt.format(min(values))}-{fmt.format(max(values))})")


def lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


# --- the yardstick ----------------------------------------------------------------------------
def yardstick(shoes: int, out: Path) -> None:
    """Deal ``shoes`` seeded shoes by the tableau, no checks: the plain simulator."""
    codes = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    values = {c: min("A23456789TJQK".index(c[0]) + 1, 10) % 10 for c in codes}
    rng = random.Random(1)
    with out.open("wb") as f:
        for n in range(shoes):
            cards = codes * 8
            rng.shuffle(cards)
            cut = len(cards) - rng.randint(14, 18)
            burn = "A23456789TJQK".index(cards[0][0]) + 1
            i = 1 + min(burn, 10)
            rnd = 0
            while i + 6 <= len(cards):
                p, b = [cards[i], cards[i + 2]], [cards[i + 1], cards[i + 3]]
                i += 4
                pt, bt = (values[p[0]] + values[p[1]]) % 10, (values[b[0]] + values[b[1]]) % 10
                third = -1
                if pt < 8 and bt < 8 and pt <= 5:
                    p.append(cards[i])
                    third = values[cards[i]]
                    i += 1
                if pt < 8 and bt < 8 and (
                        bt <= 2 or (third < 0 and bt <= 5)
                        or (bt == 3 and third != 8) or (bt == 4 and 2 <= third <= 7)
                        or (bt == 5 and 4 <= third <= 7) or (bt == 6 and third in (6, 7))):
                    b.append(cards[i])
                    i += 1
                ptot, btot = sum(values[c] for c in p) % 10, sum(values[c] for c in b) % 10
                rnd += 1
                f.write(orjson.dumps({"shoe": n + 1, "round": rnd, "player": p, "banker": b,
                                      "winner": "player" if ptot > btot else
                                      "banker" if btot > ptot else "tie"}) + b"\n")
                if i > cut:
                    break


# --- whole commands ---------------------------------------------------------------------------
def command_rates(tree: Path, shoes: int, runs: int, tmp: Path) -> dict[str, list[float]]:
    """Rounds/s by CPU, start-up subtracted, for simulate, replay and the yardstick."""
    station = [PY, "-m", "station.cli"]
    small, big = tmp / "small.jsonl", tmp / "big.jsonl"
    for n, rec in ((1, small), (shoes, big)):
        child([*station, "simulate", "--shoes", str(n), "--seed", "1", "--record", str(rec)],
              tree)
    cases: dict[str, Callable[[int, Path], list[str]]] = {
        "simulate": lambda n, out: [*station, "simulate", "--shoes", str(n), "--seed", "1",
                                    "--out", str(out)],
        "replay": lambda n, out: [*station, "replay", str(small if n == 1 else big),
                                  "--out", str(out)],
        "yardstick": lambda n, out: [PY, str(Path(__file__).resolve()), "--yardstick",
                                     str(n), "--out", str(out)],
    }
    rates: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(runs):
        for name, argv in cases.items():
            cpu1, _ = child(argv(1, tmp / "o1"), tree)
            cpun, _ = child(argv(shoes, tmp / "on"), tree)
            extra = lines(tmp / "on") - lines(tmp / "o1")
            rates[name].append(extra / max(cpun - cpu1, 1e-9))
    rates["rounds"] = [float(lines(tmp / "on"))]
    return rates


def startup(tree: Path, runs: int) -> dict[str, list[float]]:
    station = [PY, "-m", "station.cli"]
    cases = {
        "python -c pass": [PY, "-c", "pass"],
        "station --help": [*station, "--help"],
        "station roads --sequence BPPTBBPB": [*station, "roads", "--sequence", "BPPTBBPB"],
        "station analyze --help": [*station, "analyze", "--help"],
        "station analyze seed000.yaml (whole run)": [*station, "analyze",
                                                     "config/paytables/seed000.yaml"],
    }
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(runs):
        for name, argv in cases.items():
            cpu[name].append(child(argv, tree)[0])
    return cpu


def memory(tree: Path, counts: tuple[int, int], runs: int) -> dict[int, list[int]]:
    rss: dict[int, list[int]] = {n: [] for n in counts}
    for _ in range(runs):
        for n in counts:
            rss[n].append(child([PY, "-m", "station.cli", "simulate", "--shoes", str(n),
                                 "--seed", "1", "--out", os.devnull], tree)[1])
    return rss


# --- in process -------------------------------------------------------------------------------
def apply_per_card(shoes: int, prompts: bool) -> tuple[float, float, int, float]:
    """Median and p99 of Station.apply on card reads (us, thread CPU), count, clock cost."""
    from drivers.events import CardRead, InputEvent  # noqa: PLC0415 - the tree under test
    from drivers.simulated import SimulatedDealer, random_shoes  # noqa: PLC0415
    from station.settings.paytable import load_paytable  # noqa: PLC0415
    from station.table.outputs import Output  # noqa: PLC0415
    from station.table.simulation import simulate  # noqa: PLC0415
    from station.table.station import Station  # noqa: PLC0415
    from station.table.tablerules import TableRules  # noqa: PLC0415

    paytable = load_paytable(TREE[0] / "config" / "paytables" / "seed000.yaml")
    station = Station(TableRules(), paytable, prompts=prompts)
    clock = time.thread_time_ns
    overhead = statistics.median(-clock() + clock() for _ in range(10_000))
    samples: list[int] = []
    apply = station.apply

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
    return (statistics.median(samples) / 1000, samples[int(len(samples) * 0.99)] / 1000,
            len(samples), overhead / 1000)


def settle_and_record(shoes: int, runs: int) -> list[float]:
    """us per round to build the record and settle the seed 003 bets (thread CPU), from the
    round's cards, the way the tree under test's station does it."""
    from drivers.simulated import CUT, random_shoes  # noqa: PLC0415
    from station.game import outcome, results  # noqa: PLC0415
    from station.game.cards import parse_card  # noqa: PLC0415
    from station.game.rules import banker_draws, player_draws  # noqa: PLC0415
    from station.game.settlement import Settler  # noqa: PLC0415
    from station.settings.paytable import load_paytable  # noqa: PLC0415

    decide = outcome.decide
    from_cards = hasattr(results, "round_record")
    values_key: Any = getattr(outcome, "values_key", None)  # absent in an older tree
    hands = []
    for shoe in random_shoes(1, shoes):
        cards = [parse_card(c) for c in shoe if c != CUT]
        i = 1 + cards[0].burn_count
        while i + 6 <= len(cards):
            p, b = [cards[i], cards[i + 2]], [cards[i + 1], cards[i + 3]]
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
            hands.append((p, b))
    settler = Settler(load_paytable(TREE[0] / "config" / "paytables" / "seed003.yaml"))
    open_bets = list(settler.paytable.keys)
    shoe_id = "table-1-20260101T000003Z-1"
    per_round = []
    for _ in range(runs + 1):  # the first run fills the caches, as the first shoes do
        t0 = time.thread_time_ns()
        if from_cards:  # as the station does since issue 13's third pass: no RoundOutcome
            for p, b in hands:
                key = values_key(p, b)
                record = results.round_record(shoe_id, 7, p, b, key)
                record["open_bets"] = open_bets
                record["bets"] = settler.settle_round(p, b, key)
        else:  # as the station did before it (--tree of an older checkout)
            for p, b in hands:
                o = decide(tuple(p), tuple(b))
                record = results.complete_record(shoe_id, 7, o)
                record["open_bets"] = open_bets
                record["bets"] = settler.settle(o)
        per_round.append((time.thread_time_ns() - t0) / len(hands) / 1000)
    return per_round[1:]


def trigger_us(n: int, lean: bool = False) -> float:
    from transitions import Machine  # noqa: PLC0415

    from station.table.fsm import LeanMachine  # noqa: PLC0415

    class Model:
        pass

    model = Model()
    cls = LeanMachine if lean else Machine
    cls(model=model, states=["a", "b"], initial="a", auto_transitions=False,
        transitions=[{"trigger": "go", "source": "a", "dest": "b"},
                     {"trigger": "go", "source": "b", "dest": "a"}])
    go = model.go  # type: ignore[attr-defined]
    t0 = time.thread_time_ns()
    for _ in range(n):
        go()
    return (time.thread_time_ns() - t0) / n / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--shoes", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="tiny inputs, one run each")
    parser.add_argument("--tree", type=Path, default=TREE[0],
                        help="the checkout whose commands are timed (default: this one)")
    parser.add_argument("--yardstick", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.yardstick is not None:
        yardstick(args.yardstick, args.out)
        return
    runs, shoes = (1, 3) if args.quick else (args.runs, args.shoes)
    tree = args.tree.resolve()
    TREE[0] = tree  # the in-process measures import and read the tree under test
    sys.path.insert(0, str(tree))
    # As scripts/setup leaves a tree: compiled, so no command compiles a module as it starts
    # (the machine may set PYTHONDONTWRITEBYTECODE, and then no import writes the bytecode).
    subprocess.run([PY, "-m", "compileall", "-q", "station", "drivers"], cwd=tree, check=True,
                   stdout=subprocess.DEVNULL)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}; commands of {tree}; {runs} run(s); CPU time")
    # First, while this process is small: Linux reports a child's peak as at least the size
    # of the process it was forked from.
    counts = (2, 20) if args.quick else (200, 2000)
    rss = memory(tree, counts, 1 if args.quick else 2)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("max RSS of simulate, KiB: " + ", ".join(
        f"--shoes {n}: {spread([float(v) for v in rss[n]])}" for n in counts)
        + f" (this process: {own:,})")
    n = 20_000 if args.quick else 200_000
    lean = (f"; the same on station.table.fsm.LeanMachine {trigger_us(n, lean=True):.2f} us"
            if any((tree / "station" / sub / "fsm.py").exists() for sub in ("table", "")) else "")
    print(f"reference: one plain transitions trigger {trigger_us(n):.2f} us (issue 13: 7.4 us)"
          + lean)
    with tempfile.TemporaryDirectory() as tmp:
        rates = command_rates(tree, shoes, runs, Path(tmp))
    rounds = int(rates.pop("rounds")[0])
    print(f"rounds/s by CPU, start-up subtracted ({shoes} shoes, seed 1, {rounds} rounds; "
          "target >= 12,000):")
    for name, values in rates.items():
        print(f"  {name}: {spread(values)}")
    for other in ("replay", "yardstick"):
        ratio = [y / s for y, s in zip(rates[other], rates["simulate"], strict=True)]
        print(f"  {other} / simulate, run by run: {spread(ratio, '{:.2f}')}")
    for prompts in (False, True):
        # A p99 is the slowest 1% of one run, so a busy spell of the machine moves it most:
        # several runs, each a fresh station (the per-process tables are built once).
        got = [apply_per_card(3 if args.quick else shoes, prompts) for _ in range(runs)]
        med, p99 = [g[0] for g in got], [g[1] for g in got]
        print(f"Station.apply per card read, prompts={prompts} ({got[0][2]} reads, thread CPU, "
              f"clock {got[0][3]:.2f} us included): median {spread(med, '{:.2f}')} us, p99 "
              f"{spread(p99, '{:.2f}')} us (target < 10 / < 25)")
    per_round = settle_and_record(3 if args.quick else 30, runs)
    print("record + settle of a round from its cards (its outcome included), seed 003 (42 "
          f"bets), us per round: {spread(per_round, '{:.2f}')} "
          "(target < 5)")
    cpu = startup(tree, runs)
    base = statistics.median(cpu["python -c pass"])
    print("start-up, CPU s (target: within 0.1 s of python -c pass):")
    for name, values in cpu.items():
        extra = statistics.median(values) - base
        print(f"  {name}: {spread(values, '{:.3f}')}" + (f", +{extra:.3f}" if values is not
                                                          cpu["python -c pass"] else ""))


if __name__ == "__main__":
    main()
