"""Benchmark of ``station fleet`` (issue 23): what N simulated tables cost one machine.

    .venv/bin/python benchmarks/bench_fleet.py [--tables 20] [--seconds 60] [--fast]

A Mosquitto of the test suite's (loopback, a free port) and ``station fleet`` with
``config/fleet.yaml``'s table (realistic pace; ``--fast`` deals at 0.2 s a card) pointed at
it. Figures: the fleet's start (spawn to every table's start line, and to every table's
first message at a subscriber of ``baccarat/+/+``), each table's resident memory and CPU
over ``--seconds`` of play (from /proc), the messages received, and the stop (SIGINT to
the fleet's exit). Linux only (/proc).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the broker fixture lives in tests/

import yaml  # noqa: E402

from tests.fleet.fleetkit import Fleet  # noqa: E402
from tests.upstream.broker import Broker, Subscriber, wait_until  # noqa: E402

CLOCK = os.sysconf("SC_CLK_TCK")


def config(folder: Path, port: int, fast: bool) -> Path:
    data = yaml.safe_load((REPO / "config" / "fleet.yaml").read_text(encoding="utf-8"))
    data["table"]["paytable"] = str(REPO / "config" / "paytables" / "seed000.yaml")
    data["upstream"]["port"] = port
    if fast:
        data["simulation"]["pace"] = {"card_s": 0.2, "open_betting_s": 0.05, "betting_s": 0.1,
                                      "new_shoe_s": 0.2, "supervisor_s": 0.2}
    path = folder / "fleet.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK  # utime, stime


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0, help="of play measured")
    parser.add_argument("--fast", action="store_true", help="0.2 s a card, not a dealer's pace")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        broker = Broker(Path(tmp) / "broker")
        broker.start()
        sub = Subscriber(broker.port, "baccarat/+/+", client_id="bench-fleet")
        fleet: Fleet | None = None
        try:
            path = config(Path(tmp), broker.port, args.fast)
            t0 = time.monotonic()
            fleet = Fleet(path, args.tables, Path(tmp) / "fleet")
            pids = fleet.started(args.tables)
            started_s = time.monotonic() - t0

            def heard() -> set[str]:
                return {str(json.loads(m.payload).get("table")) for m in sub.snapshot()}
            wait_until(lambda: len(heard()) >= args.tables, 300, "every table's first message",
                       0.05)
            first_s = time.monotonic() - t0
            before = {p: cpu_s(p) for p in pids.values()}
            received = len(sub.snapshot())
            time.sleep(args.seconds)
            cpu = [(cpu_s(p) - before[p]) / args.seconds for p in pids.values()]
            rss = [rss_mb(p) for p in pids.values()]
            received = len(sub.snapshot()) - received
            fleet_rss = rss_mb(fleet.proc.pid)
            t1 = time.monotonic()
            code = fleet.stop(signal.SIGINT, timeout_s=300)
            stop_s = time.monotonic() - t1
        finally:
            if fleet is not None:
                fleet.close()
            sub.close()
            broker.kill()
    pace = "0.2 s a card" if args.fast else "a dealer's pace (config/fleet.yaml)"
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, mosquitto {broker.version()}")
    print(f"{args.tables} tables at {pace}, {args.seconds:g} s of play measured")
    print(f"start: every start line after {started_s:.2f} s, every table heard after "
          f"{first_s:.2f} s")
    print(f"per table: RSS median {statistics.median(rss):.1f} MB, max {max(rss):.1f} MB; "
          f"CPU median {statistics.median(cpu) * 100:.2f}% of a core, max "
          f"{max(cpu) * 100:.2f}%; all tables {sum(cpu) * 100:.1f}% of a core")
    print(f"fleet process: RSS {fleet_rss:.1f} MB")
    print(f"messages received in the {args.seconds:g} s: {received} "
          f"({received / args.seconds:.1f}/s)")
    print(f"stop: SIGINT to exit {code} in {stop_s:.2f} s")


if __name__ == "__main__":
    main()
