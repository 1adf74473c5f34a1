"""Benchmark of the serial shoe scanner (issue 9): from the last byte of a code written into
a pty to the driver posting its ``CardRead``.

Target: p99 under 1 ms over 1,000 cards.

    .venv/bin/python benchmarks/bench_serial.py [--cards 1000] [--framing cr]

The real ``SerialScanner`` reads the slave end of a pseudo-terminal through pyserial, as it
reads a USB scanner; this process writes each framed code into the master end in one write,
takes ``perf_counter_ns`` when the write returns, and the driver's ``post`` (on the driver's
thread) takes it again. One card at a time: each waits for the previous to be posted, as a
dealer's cards do (they come seconds apart). What the station then decides is measured by
the station's own benchmark, not here. For contrast, the same pty alone: a byte written to
the master and read back from the slave with ``select`` + ``os.read``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import select
import statistics
import threading
import time
import tty

from drivers.base import EventSource
from drivers.events import CardRead, InputEvent
from drivers.framing import FrameParser
from drivers.serial_scanner import SerialScanner
from drivers.sim_serial import PtyScanner, encode
from drivers.simulated import CODES

TARGET_P99_MS = 1.0


def percentile(sorted_ns: list[int], q: float) -> float:
    return sorted_ns[min(len(sorted_ns) - 1, int(q * len(sorted_ns)))] / 1e6


def summary(name: str, ns: list[int]) -> str:
    s = sorted(ns)
    return (f"{name}: n={len(s)} median {statistics.median(s) / 1e6:.3f} ms, "
            f"p90 {percentile(s, 0.90):.3f} ms, p99 {percentile(s, 0.99):.3f} ms, "
            f"max {s[-1] / 1e6:.3f} ms")


def driver_latency(cards: int, framing: str, seed: int) -> list[int]:
    rng = random.Random(seed)
    posted = threading.Event()
    at: list[int] = [0]
    seen: list[str] = []

    def post(source: EventSource, event: InputEvent) -> None:
        at[0] = time.perf_counter_ns()
        assert isinstance(event, CardRead), event
        seen.append(event.code)
        posted.set()

    times: list[int] = []
    codes = [rng.choice(CODES) for _ in range(cards + 50)]
    with PtyScanner() as sim:
        driver = SerialScanner(sim.path, parser=FrameParser(framing), read_timeout_s=0.5)
        driver.start(post)
        try:
            if not driver.connected.wait(5):
                raise SystemExit("the driver did not open the pty")
            for i, code in enumerate(codes):
                posted.clear()
                data = encode(code, framing)
                sim.write(data)
                written = time.perf_counter_ns()
                if not posted.wait(5):
                    raise SystemExit(f"card {i} ({code}) was never posted")
                if i >= 50:  # the first 50 warm up caches and the thread
                    times.append(at[0] - written)
                time.sleep(rng.uniform(0.0005, 0.002))  # cards do not come back to back
        finally:
            driver.stop()
    if seen != codes:
        raise SystemExit("the cards posted are not the cards written")
    return times


def pty_alone(count: int) -> list[int]:
    master, slave = os.openpty()
    tty.setraw(slave)
    times = []
    try:
        for _ in range(count):
            t0 = time.perf_counter_ns()
            os.write(master, b"x")
            select.select([slave], [], [], 1.0)
            os.read(slave, 16)
            times.append(time.perf_counter_ns() - t0)
    finally:
        os.close(master)
        os.close(slave)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--framing", default="cr", choices=["cr", "lf", "crlf", "tab", "stx_etx"])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}")
    ns = driver_latency(args.cards, args.framing, args.seed)
    print(summary(f"last byte written -> CardRead posted ({args.framing})", ns))
    print(summary("reference: one byte through the pty alone", pty_alone(args.cards)))
    p99 = percentile(sorted(ns), 0.99)
    print(f"target p99 < {TARGET_P99_MS} ms: {'met' if p99 < TARGET_P99_MS else 'NOT met'}")


if __name__ == "__main__":
    main()
