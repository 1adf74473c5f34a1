"""Benchmark of the USB HID scanners (issue 36): from a code's key events (or its HID-POS
report) written to the reader's device to the reader posting its ``CardRead``.

Target: p99 under 1 ms over 1,000 cards.

    .venv/bin/python benchmarks/bench_hid.py [--cards 1000] [--mode keyboard|pos]

The real ``HidScanner`` reads the kernel's ``input_event`` records through python-evdev's
``read`` from a FIFO standing where the event node would be (tests/drivers/hidkit.py: no
input device can be made here), decodes them with the ``us`` layout and frames them with the
serial scanners' parser; in ``pos`` mode the real ``HidPosScanner`` reads 64-byte reports.
This process writes all of one code's records (scan codes, key down and up, shift, reports,
Enter: 36 records for ``QH``) in one write, takes ``perf_counter_ns`` when the write
returns, and the driver's ``post`` takes it again on the driver's thread. One card at a
time, as a dealer's cards come. A real scanner types its keys over some milliseconds (one
USB report each); that is the scanner's time, not the reader's, and is not in the figure.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from drivers.base import EventSource
from drivers.events import CardRead, InputEvent
from drivers.hid_scanner import HidScanner
from drivers.hidpos import HidPosScanner
from drivers.layouts import load_layout
from drivers.simulated import CODES
from tests.drivers.hidkit import Fifo, us_keys
from tests.drivers.test_hidpos import report

TARGET_P99_MS = 1.0


def percentile(sorted_ns: list[int], q: float) -> float:
    return sorted_ns[min(len(sorted_ns) - 1, int(q * len(sorted_ns)))] / 1e6


def summary(name: str, ns: list[int]) -> str:
    s = sorted(ns)
    return (f"{name}: n={len(s)} median {statistics.median(s) / 1e6:.3f} ms, "
            f"p90 {percentile(s, 0.90):.3f} ms, p99 {percentile(s, 0.99):.3f} ms, "
            f"max {s[-1] / 1e6:.3f} ms")


def latency(cards: int, mode: str, seed: int, folder: Path) -> list[int]:
    rng = random.Random(seed)
    posted = threading.Event()
    at: list[int] = [0]
    seen: list[str] = []

    def post(source: EventSource, event: InputEvent) -> None:
        at[0] = time.perf_counter_ns()
        assert isinstance(event, CardRead), event
        seen.append(event.code)
        posted.set()

    fifo = Fifo(folder / f"bench-{mode}")
    driver: HidScanner | HidPosScanner = (
        HidScanner(str(fifo.path), layout=load_layout("us"), open_device=fifo.opener,
                   read_timeout_s=0.5) if mode == "keyboard"
        else HidPosScanner(str(fifo.path), read_timeout_s=0.5))
    codes = [rng.choice(CODES) for _ in range(cards + 50)]
    times: list[int] = []
    driver.start(post)
    try:
        if not driver.connected.wait(5):
            raise SystemExit("the reader did not open the FIFO")
        fifo.connect()
        for i, code in enumerate(codes):
            data = (b"".join(us_keys(code)) if mode == "keyboard"
                    else report(code.encode()))
            posted.clear()
            fifo.write_bytes(data)
            written = time.perf_counter_ns()
            if not posted.wait(5):
                raise SystemExit(f"card {i} ({code}) was never posted")
            if i >= 50:  # the first 50 warm up caches and the thread
                times.append(at[0] - written)
            time.sleep(rng.uniform(0.0005, 0.002))  # cards do not come back to back
    finally:
        driver.stop()
        fifo.close()
    if seen != [c.upper().replace("10", "T") for c in codes]:
        raise SystemExit("the cards posted are not the cards written")
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--mode", default="keyboard", choices=["keyboard", "pos"])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        ns = latency(args.cards, args.mode, args.seed, Path(tmp))
    what = "key events" if args.mode == "keyboard" else "HID-POS report"
    print(summary(f"{what} written -> CardRead posted ({args.mode})", ns))
    p99 = percentile(sorted(ns), 0.99)
    print(f"target p99 < {TARGET_P99_MS} ms: {'met' if p99 < TARGET_P99_MS else 'NOT met'}")


if __name__ == "__main__":
    main()
