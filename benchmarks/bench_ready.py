"""Benchmark of start-up (issue 35): spawn to READY=1 for ``station run`` with the default
simulated config, and ``station --help`` against a bare ``python -c pass``.

    .venv/bin/python benchmarks/bench_ready.py [--starts 10] [--vs OTHER_CHECKOUT]

Each start is a real ``python -m station.cli run`` process with no ``-c`` (the shipped
``config/station.yaml``: simulated reader, console display, the metrics endpoint, the clock
check, the install check) in a fresh scratch folder, so a new journal every time, and
NOTIFY_SOCKET pointing at a datagram socket of ours; the time is from just before the spawn
to the READY=1 datagram, in wall time and in the CPU time the process had used by then
(user + sys, from /proc, in clock ticks of 10 ms). With ``--vs`` the same is done, start by
start in turn, with the other checkout's ``station`` package first on ``sys.path`` (the same
interpreter and dependencies), so the two figures come from the same minutes of a shared machine.
``--help`` is timed the same way: spawn to exit, against ``python -c pass``.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _env(tree: Path, notify: str | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree),
           # The test suite's fixed answer: the figure must not depend on this host's NTP.
           "STATION_CLOCK_SOURCE": "synchronised"}
    if notify is not None:
        env["NOTIFY_SOCKET"] = notify
    return env


def cpu_of(pid: int) -> float:
    """CPU seconds (user + sys) the process has used so far, from /proc: on a shared machine
    the figure a queue of other work does not stretch."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_to_ready(tree: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) from the spawn to READY=1."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.bind(str(folder / "notify"))
            sock.settimeout(30.0)
            started = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, "-m", "station.cli", "run"], cwd=folder,
                env=_env(tree, str(folder / "notify")), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                while b"READY=1" not in sock.recv(4096).split(b"\n"):
                    pass
                wall = time.perf_counter() - started
                return wall, cpu_of(proc.pid)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(30)


def time_of(argv: list[str], tree: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=_env(tree, None), stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def ms(values: list[float]) -> str:
    return (f"median {statistics.median(values) * 1000:.0f} ms "
            f"({min(values) * 1000:.0f}-{max(values) * 1000:.0f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--vs", type=Path, default=None,
                    help="another checkout of the station, timed in turn with this one")
    args = ap.parse_args()
    trees = {"this tree": REPO}
    if args.vs is not None:
        trees["--vs tree"] = args.vs.resolve()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, load {os.getloadavg()[0]:.1f} at start")
    ready: dict[str, list[float]] = {k: [] for k in trees}
    cpu: dict[str, list[float]] = {k: [] for k in trees}
    helps: dict[str, list[float]] = {k: [] for k in trees}
    bare: list[float] = []
    for _ in range(args.starts):
        for name, tree in trees.items():
            wall, used = time_to_ready(tree)
            ready[name].append(wall)
            cpu[name].append(used)
            helps[name].append(time_of([sys.executable, "-m", "station.cli", "--help"], tree))
        bare.append(time_of([sys.executable, "-c", "pass"], REPO))
    for name in trees:
        print(f"{name}: spawn to READY {ms(ready[name])} wall, {ms(cpu[name])} of CPU, over "
              f"{args.starts} starts")
        extra = [h - b for h, b in zip(helps[name], bare, strict=True)]
        print(f"{name}: station --help {ms(helps[name])}; minus python -c pass, start by "
              f"start: {ms(extra)}")
    print(f"python -c pass: {ms(bare)}; load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
