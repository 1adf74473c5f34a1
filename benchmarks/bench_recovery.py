"""Benchmark: what keeping the shoe's rounds for the page costs a start (issue 10).

Recovery replays the journal through a fresh station; it now also keeps the rounds of the
shoe in play for the web display, which then rebuilds that shoe's results and roads once.

    .venv/bin/python benchmarks/bench_recovery.py [--shoes 3] [--repeat 5] [--dir /dev/shm]

1. ``recover(journal)`` as it is, against the same replay without keeping the rounds (the
   loop as it was before), alternated, on a journal of ``--shoes`` simulated 8-deck shoes
   with a round in progress in the last one.
2. Building the web display with those rounds (the roads of the shoe drawn again) against
   building it with none.
3. A pause reason put into Chinese (``station.web.words.reason_zh``) without its cache: a
   view of a paused table pays it once per reason.
4. ``recover`` while comparing the journal's kept recording, up to date as after a clean
   stop (``station.journal.keptrecording``, issue 18), against ``recover`` alone.
Medians (and minima) of ``--repeat`` runs, in CPU milliseconds of the process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from drivers.events import InputEvent  # noqa: E402
from drivers.simulated import Pace, SimulatedDealer, random_shoes  # noqa: E402
from station.journal import Journal  # noqa: E402
from station.journal.keptrecording import KeptRecording  # noqa: E402
from station.journal.recovery import last_message_seq, recover  # noqa: E402
from station.table.machine import DEALING  # noqa: E402
from station.table.simulation import DUE  # noqa: E402
from station.table.station import Station  # noqa: E402
from station.table.tablerules import TableRules  # noqa: E402
from station.web.display import WebDisplay  # noqa: E402
from station.web.hub import Hub  # noqa: E402
from station.web.view import Surroundings  # noqa: E402
from station.web.words import reason_zh  # noqa: E402
from station.wire.recording import header_line  # noqa: E402

RULES = TableRules(table="bench", decks=8)


def session_events(shoes: int) -> list[InputEvent]:
    """Every event of ``shoes`` simulated shoes and part of one more (a round in progress)."""
    station = Station(RULES, prompts=False)
    dealer = SimulatedDealer(random_shoes(5, shoes + 1, 8), pace=Pace(), supervisor="resume")
    events: list[InputEvent] = []
    while True:
        steps = dealer.steps(DUE[station.phase])
        if not steps:
            break
        for _, ev in steps:
            events.append(ev)
            station.apply(ev)
        if (dealer.shoe_no > shoes and station.dealing.round_no >= 30
                and station.phase in DEALING):
            break
    return events


def plain_replay(journal: Journal) -> Station:
    """The replay as recovery did it before it kept rounds."""
    header = journal.header
    station = Station(header.rules, header.paytable, session=header.session)
    for record in journal.records():
        station.apply(record.event)
    last_message_seq(journal)
    return station


def compared(journal: Journal, folder: Path) -> None:
    """A start's recovery with the kept recording compared line by line (and completed)."""
    h = journal.header
    kept = KeptRecording(folder, "bench", header_line(h.rules, h.paytable, h.session).encode())
    try:
        recover(journal, kept.sync)
        kept.done()
    finally:
        kept.close()


def timed(fn: Callable[[], object]) -> float:
    """CPU milliseconds of this process (the machine is shared: wall time measures the
    neighbours); the journal is read in this process, so its reads count too."""
    started = time.process_time()
    fn()
    return (time.process_time() - started) * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shoes", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    events = session_events(args.shoes)
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(folder) / "journal.sqlite3"
        with Journal.create(path, RULES, None, "bench") as journal:
            for i, ev in enumerate(events):
                journal.append(ev, ev.ts, float(i))
        with Journal.open(path) as journal:
            rec = recover(journal)
            print(f"journal: {len(events)} events, {args.shoes} whole shoes and "
                  f"{len(rec.shoe_rounds)} rounds of the shoe in play")
            kept, plain, synced = [], [], []
            compared(journal, Path(folder))  # writes the recording: later starts compare it
            for _ in range(args.repeat):
                kept.append(timed(lambda: recover(journal)))
                plain.append(timed(lambda: plain_replay(journal)))
                synced.append(timed(lambda: compared(journal, Path(folder))))
            around = Surroundings("bench", "en", True, "file", None, ("sim-shoe",))
            seeded, empty = [], []
            for _ in range(args.repeat):
                seeded.append(timed(lambda: WebDisplay(rec.station, Hub(), around,
                                                       rounds=rec.shoe_rounds)))
                empty.append(timed(lambda: WebDisplay(rec.station, Hub(), around)))
    med = statistics.median
    print(f"recover, keeping the rounds:   {med(kept):8.1f} ms (median of {args.repeat}; "
          f"min {min(kept):.1f})")
    print(f"replay without keeping them:   {med(plain):8.1f} ms (min {min(plain):.1f})")
    print(f"difference:                    {med(kept) - med(plain):+8.1f} ms "
          f"({(med(kept) / med(plain) - 1) * 100:+.1f}%)")
    print(f"recover, comparing recording: {med(synced):8.1f} ms (min {min(synced):.1f}; "
          f"{(med(synced) / med(kept) - 1) * 100:+.1f}% on recover)")
    print(f"web display with the rounds:   {med(seeded):8.2f} ms")
    print(f"web display with none:         {med(empty):8.2f} ms")
    for reason in REASONS:
        n = 2000
        started = time.process_time()
        for _ in range(n):
            reason_zh.cache_clear()
            reason_zh(reason)
        each = (time.process_time() - started) / n * 1e6
        print(f"reason_zh, {len(reason.split('; '))} piece(s), {len(reason)} chars: "
              f"{each:6.1f} us")


REASONS = [
    "card not due: 4H (extra card: the round is over)",
    "unreadable code '\\x15?4' from sim-shoe: not a card; station restarted mid-round",
    "scanner lost (read failed; errno 5: Input/output error); drawn while paused: 2 cards "
    "(4H 5S); camera lost (driver failed: RuntimeError: no frame in 5 s); station restarted "
    "mid-round",
]


if __name__ == "__main__":
    main()
