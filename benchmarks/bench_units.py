"""Benchmark of the station's unit under a real systemd (issue 34): the times an operator
sees, measured in the container of tests/service/systemdkit.py (systemd 252 as PID 1 of a
Debian rootfs, the station installed from its wheel, the unit by `station install-service`,
the config as the skeleton ships it: the simulated table at a live pace).

    .venv/bin/python benchmarks/bench_units.py [--runs 5]

Needs root, systemd-container and debootstrap, as the test does. Each figure is taken from
systemd's own timestamps (CLOCK_MONOTONIC, which the container shares with the host):

- READY after `systemctl start`, cold: the first start after the boot, a new journal, the
  station's files not yet in the page cache of this boot; warm: a start after a stop.
  Measured from the job's start (the unit's InactiveExitTimestamp) to READY=1
  (ActiveEnterTimestamp), which is what `systemctl start` waits for.
- watchdog: SIGSTOP to the main process (a loop that hangs), then systemd's detection
  (the watchdog's SIGABRT: the unit leaves "active") and READY again after the restart
  (RestartSec=2 included).
- kill -9 to READY again (RestartSec=2 included).
- `systemctl stop`: the command's own wall time, SIGTERM to the process gone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the container kit lives in tests/

from tests.service import systemdkit  # noqa: E402
from tests.service.systemdkit import DIST, STATION, VENVS, WHEELS, Container  # noqa: E402
from tests.service.wheelkit import build_wheel  # noqa: E402

UNIT = "dealer-station.service"


def mono_s(c: Container, prop: str) -> float:
    return int(c.show(UNIT, prop)[prop]) / 1e6


def now_s() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def wait(what: str, ok: Callable[[], bool], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench_units: still not {what} after {timeout:.0f} s")
        time.sleep(0.02)


def start(c: Container) -> float:
    c.run("systemctl", "start", UNIT, timeout=90)
    return mono_s(c, "ActiveEnterTimestampMonotonic") - mono_s(c, "InactiveExitTimestampMonotonic")


def stop(c: Container) -> float:
    t0 = now_s()
    c.run("systemctl", "stop", UNIT, timeout=60)
    return now_s() - t0


def restarted(c: Container, pid: str) -> bool:
    p = c.show(UNIT, "ActiveState", "MainPID")
    return p["ActiveState"] == "active" and p["MainPID"] not in ("0", pid)


def hang(c: Container) -> tuple[float, float]:
    """SIGSTOP to (detection, READY again), seconds from the signal."""
    pid = c.show(UNIT, "MainPID")["MainPID"]
    t0 = now_s()
    c.run("systemctl", "kill", "--kill-who=main", "--signal=SIGSTOP", UNIT)
    wait("restarted by the watchdog", lambda: restarted(c, pid))
    detected = mono_s(c, "InactiveEnterTimestampMonotonic")
    if detected < t0:  # the restart went through "deactivating" only
        detected = mono_s(c, "ActiveExitTimestampMonotonic")
    return detected - t0, mono_s(c, "ActiveEnterTimestampMonotonic") - t0


def kill9(c: Container) -> float:
    pid = c.show(UNIT, "MainPID")["MainPID"]
    t0 = now_s()
    c.run("systemctl", "kill", "--kill-who=main", "--signal=SIGKILL", UNIT)
    wait("restarted after kill -9", lambda: restarted(c, pid))
    return mono_s(c, "ActiveEnterTimestampMonotonic") - t0


def fmt(xs: list[float]) -> str:
    if len(xs) == 1:
        return f"{xs[0]:.2f} s"
    return f"{statistics.median(xs):.2f} s (range {min(xs):.2f}-{max(xs):.2f}, n={len(xs)})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="measurements of each (default 5)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-units-") as tmp_name:
        tmp = Path(tmp_name)
        try:
            tree = systemdkit.rootfs()
            wheel = build_wheel(tmp)
            house = systemdkit.wheelhouse(wheel)
        except systemdkit.Unbootable as exc:
            raise SystemExit(f"bench_units: {exc}") from None
        cold: list[float] = []
        warm: list[float] = []
        detect: list[float] = []
        again: list[float] = []
        killed: list[float] = []
        stops: list[float] = []
        boots: list[float] = []
        for _ in range(args.runs):
            t0 = time.monotonic()
            c = Container(tree, [(house, WHEELS), (wheel.parent, DIST)], tmp / "console.log",
                          writable=[(systemdkit.venvs(), VENVS)])
            boots.append(time.monotonic() - t0)
            try:
                systemdkit.install_station(c, house)
                c.run(STATION, "install-service")
                c.run(STATION, "keygen", "/etc/dealer-station/credentials")
                c.run("systemctl", "daemon-reload")
                cold.append(start(c))
                stops.append(stop(c))
                warm.append(start(c))
                seen, ready = hang(c)
                detect.append(seen)
                again.append(ready)
                killed.append(kill9(c))
                stops.append(stop(c))
            finally:
                c.close()
    print(f"container boot to multi-user: {fmt(boots)}")
    print(f"READY after systemctl start, cold: {fmt(cold)}")
    print(f"READY after systemctl start, warm: {fmt(warm)}")
    print(f"watchdog: SIGSTOP to detection: {fmt(detect)}")
    print(f"watchdog: SIGSTOP to READY again: {fmt(again)}")
    print(f"kill -9 to READY again: {fmt(killed)}")
    print(f"systemctl stop: {fmt(stops)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
