"""Secret checks (issue 31): memory after many wrong sign-ins, and checked guesses per account.

Runs wrong sign-ins through station.web.accounts on the one secret-check thread, from many
threads at once (as many requests of a page server would), and prints the process's RSS
before and after, and how many of the guesses at one account were checked (the rest found
the account locked). A second mode shows what the default executor of asyncio.to_thread
did before (``--before``): one 16 MiB block kept per thread.

    .venv/bin/python benchmarks/bench_secrets.py [--signins 1000] [--parallel 60]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from station.web import pins, secretpool
from station.web.accounts import Accounts, Verdict
from station.web.lockout import Lockout


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def signins(checker: Accounts, n: int, parallel: int, before: bool) -> list[str]:
    sem = asyncio.Semaphore(parallel)

    async def one(i: int) -> str:
        async with sem:
            def check() -> str:
                return checker.check(f"n{i % 50}", "0000", "resume").verdict
            if before:
                return await asyncio.to_thread(check)
            return await secretpool.run_async(check)

    return await asyncio.gather(*(one(i) for i in range(n)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--signins", type=int, default=1000)
    ap.add_argument("--parallel", type=int, default=60)
    ap.add_argument("--before", action="store_true",
                    help="check on asyncio.to_thread's executor, as before issue 31")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "a.pins"
        pins.save(path, [pins.hash_pin("ann", "4711")])
        # No lockout here: every one of the sign-ins is a real scrypt check.
        checker = Accounts(path, ("pit_boss",), lockout=Lockout(max_failures=10**9))
        if not args.before:
            secretpool.run(lambda: None)
        start_rss, t0 = rss_mib(), time.perf_counter()
        asyncio.run(signins(checker, args.signins, args.parallel, args.before))
        took = time.perf_counter() - t0
        end_rss = rss_mib()
        print(f"{args.signins} wrong sign-ins, {args.parallel} at once"
              f"{' (to_thread, before)' if args.before else ''}: RSS {start_rss:.1f} -> "
              f"{end_rss:.1f} MiB ({(end_rss - start_rss) / start_rss * 100:+.1f} %), "
              f"{took / args.signins * 1000:.1f} ms a check, mmap threshold fixed: "
              f"{secretpool.mmap_threshold_fixed}")
        # Checked guesses per account per lock: 200 at one account at once.
        locked = Accounts(path, ("pit_boss",))
        got = asyncio.run(_at_one(locked, 200, args.parallel))
        print(f"200 guesses at one account, {args.parallel} at once: "
              f"{got.count(Verdict.WRONG)} checked, {got.count(Verdict.LOCKED)} found it "
              "locked (60 s)")
    return 0


async def _at_one(checker: Accounts, n: int, parallel: int) -> list[str]:
    sem = asyncio.Semaphore(parallel)

    async def one(i: int) -> str:
        async with sem:
            return await secretpool.run_async(
                lambda: checker.check("ann", f"{1000 + i}", "resume").verdict)

    return await asyncio.gather(*(one(i) for i in range(n)))


if __name__ == "__main__":
    raise SystemExit(main())
