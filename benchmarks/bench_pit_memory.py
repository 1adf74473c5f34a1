"""The pit's model's memory over simulated time (issue 23): ``bench_pit.py``'s floor (200
tables at 0.5 messages a second, 20 at 12.5, each its own signed stream) fed in-process to
``PitModel`` (the client library's ``Floor`` with the schemas, a real pit journal), as fast
as it goes, with the floor's JSON built every 5 simulated minutes; the process's RSS then.
No broker and no pages: what a long run of the pit holds, in minutes of the machine instead
of hours.

    .venv/bin/python benchmarks/bench_pit_memory.py [--minutes 90]

Linux only (/proc).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_pit import Table, base_stream  # noqa: E402

from station.client import Floor, schema_validator  # noqa: E402
from station.services.pit import views  # noqa: E402
from station.services.pit.journal import PitJournal  # noqa: E402
from station.services.pit.model import PitModel  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")
AT = "2026-12-01T00:00:00.000Z"


def rss_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * PAGE / 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--minutes", type=float, default=90.0, help="simulated minutes")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-pit-memory-"))
    base = base_stream(work)
    tables = [Table(f"r-{n:03d}", base, n * 37) for n in range(1, 201)]
    tables += [Table(f"f-{n:02d}", base, n * 53) for n in range(1, 21)]
    rates = [0.5 if t.name.startswith("r") else 12.5 for t in tables]
    floor = Floor({t.name: t.key.public_key() for t in tables}, validate=schema_validator())
    journal = PitJournal(work / "pit.db")
    model = PitModel(floor, journal)
    step, sim, fed, start = 0.2, 0.0, 0, time.monotonic()
    print(f"   0 min  {fed:>9} messages  RSS {rss_mb():.1f} MB", flush=True)
    while sim < args.minutes * 60:
        for t, rate in zip(tables, rates, strict=True):
            for _ in range(int((sim + step) * rate) - int(sim * rate)):
                model.ingest(*t.next(), AT, time.time())
                fed += 1
        journal.commit()
        model.alerts.take()
        minute = int((sim + step) / 60)
        if minute != int(sim / 60) and minute % 5 == 0:
            views.tables_body(model, "pit", AT)
            print(f"{minute:4d} min  {fed:>9} messages  RSS {rss_mb():.1f} MB  "
                  f"({time.monotonic() - start:.0f} s)", flush=True)
        sim += step
    journal.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
