"""Benchmark of retention (issue 24): a survey of journals moved aside (their shoes and the
archive's acknowledgements read; each that would be deleted verified whole), then, with the
facts cached as the daemon's hourly run keeps them, the same survey again; and the deletion
of the acknowledged.

    .venv/bin/python benchmarks/bench_retention.py [--journals 3] [--records 20000]

Runs in a temporary folder inside the checkout (its own file system), removed afterwards.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from station.journal.prune import FactsCache, Survey, apply, survey  # noqa: E402
from station.settings.retention import RetentionLimits as Limits  # noqa: E402
from tests.journal import retentionkit as kit  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--journals", type=int, default=3)
    parser.add_argument("--records", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=ROOT, prefix=".bench-retention-") as tmp:
        folder = Path(tmp)
        made = [kit.make_aside(folder, shoes=10, records=args.records,
                               ended=time.time() - (40 - i) * kit.DAY)
                for i in range(args.journals)]
        with kit.current(folder, shoes=1) as journal:
            for n, m in enumerate(made):
                kit.ack(journal, m, n=n)
        records = args.journals * args.records

        def timed(limits: Limits, cache: FactsCache) -> tuple[float, Survey]:
            started = time.perf_counter()
            found = survey(folder / "journal.sqlite3", kit.TABLE, limits, time.time(),
                           verify_current=False, cache=cache)
            return time.perf_counter() - started, found

        kept, _ = timed(Limits(days=1000, shoes=0), FactsCache())
        cache = FactsCache()
        first, found = timed(Limits(days=1, shoes=1), cache)
        again, _ = timed(Limits(days=1, shoes=1), cache)
        started = time.perf_counter()
        done = apply(found, cache, None, lambda line: None)
        deleting = time.perf_counter() - started
        print(f"{args.journals} journals of {args.records} records moved aside")
        print(f"survey, all within retention (read, not verified): {kept * 1e3:.1f} ms")
        print(f"survey, all to delete (each verified whole): {first:.2f} s, "
              f"{first / records * 1e6:.1f} us a record")
        print(f"the same survey again, facts cached: {again * 1e3:.1f} ms")
        print(f"deleted {done.deleted} ({done.freed / 1e6:.1f} MB) in {deleting * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
