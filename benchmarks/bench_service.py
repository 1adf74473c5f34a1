"""Benchmark of the station as a service (issue 12): start to READY=1, and resident memory
after a shoe, with and without the camera driver's OpenCV loaded.

Targets: READY under 1 s; RSS under 80 MB without the camera, under 150 MB with it.

    .venv/bin/python benchmarks/bench_service.py [--starts 5]

Each start is a real ``station run`` process (``python -m station.cli``) with a fresh
journal and NOTIFY_SOCKET pointing at a datagram socket of ours; the time is from just before
the process is spawned to the READY=1 datagram, so it includes the interpreter's start, the
imports, the config, the journal's creation and the drivers' start. The memory run deals a
whole shoe at a fast pace with the metrics endpoint on, then reads VmRSS and VmHWM from
/proc. "With the camera": the same process imports cv2 (opencv-python-headless, the camera
extra) before the station starts, which is what the camera driver will cost; the camera
driver itself does not exist yet. No network: the socket is AF_UNIX, the metrics loopback.
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

import yaml

REPO = Path(__file__).resolve().parent.parent
TARGET_READY_S = 1.0
TARGET_RSS_MB = 80.0
TARGET_RSS_CAMERA_MB = 150.0
FAST = {"card_s": 0.002, "open_betting_s": 0.002, "betting_s": 0.002, "new_shoe_s": 0.002,
        "supervisor_s": 0.01}
REALISTIC = {"card_s": 1.5, "open_betting_s": 3.0, "betting_s": 12.0, "new_shoe_s": 45.0,
             "supervisor_s": 20.0}


def config(folder: Path, pace: dict[str, float], shoes: int | None) -> Path:
    cfg = {
        "table": {"id": "bench-1", "paytable": str(REPO / "config/paytables/seed000.yaml")},
        "reader": {"dedupe_ms": 1},
        "simulation": {"seed": 7, "shoes": shoes, "pace": pace},
        "display": {"type": "none"},
        "results": {"path": str(folder / "results.jsonl"), "announcements_path": None},
        "recording": {"dir": None},
        "journal": {"path": str(folder / "journal.sqlite3")},
        "upstream": {"type": "file", "path": str(folder / "upstream.jsonl")},
        "metrics": {"port": 0},
    }
    path = folder / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def spawn(cfg: Path, notify: str, camera: bool) -> subprocess.Popen[bytes]:
    pre = "import cv2; " if camera else ""
    code = (f"{pre}import sys; from station.cli import main; "
            f"sys.exit(main(['run', '-c', {str(cfg)!r}]))")
    env = {**os.environ, "NOTIFY_SOCKET": notify}
    return subprocess.Popen([sys.executable, "-c", code], cwd=cfg.parent, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def wait_ready(sock: socket.socket, timeout_s: float = 30.0) -> None:
    sock.settimeout(timeout_s)
    while b"READY=1" not in sock.recv(4096).split(b"\n"):
        pass


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)


def time_to_ready(starts: int, camera: bool) -> list[float]:
    times = []
    for _ in range(starts):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.bind(str(folder / "notify"))
                cfg = config(folder, REALISTIC, None)
                started = time.perf_counter()
                proc = spawn(cfg, str(folder / "notify"), camera)
                try:
                    wait_ready(sock)
                    times.append(time.perf_counter() - started)
                finally:
                    stop(proc)
    return times


def status_mb(pid: int) -> dict[str, float]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out


def rss_after_a_shoe(camera: bool) -> tuple[dict[str, float], int]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.bind(str(folder / "notify"))
            cfg = config(folder, FAST, None)
            proc = spawn(cfg, str(folder / "notify"), camera)
            try:
                wait_ready(sock)
                results = folder / "results.jsonl"
                deadline = time.monotonic() + 300
                # One shoe: the second shoe's first round means the first is closed.
                while time.monotonic() < deadline:
                    lines = results.read_text().splitlines() if results.exists() else []
                    if any('"round":1,' in x for x in lines[1:]):
                        break
                    time.sleep(0.2)
                else:
                    raise SystemExit("the shoe did not finish in 300 s")
                return status_mb(proc.pid), len(lines)
            finally:
                stop(proc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--starts", type=int, default=5)
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, {platform.system()} {platform.release()}")
    try:
        import cv2  # noqa: PLC0415, F401 - only to say whether the camera case can run
        cameras = [False, True]
    except ImportError:
        print("cv2 is not installed: the camera case is skipped "
              "(pip install opencv-python-headless)")
        cameras = [False]
    for camera in cameras:
        label = "with cv2" if camera else "without cv2"
        times = time_to_ready(args.starts, camera)
        mem, rounds = rss_after_a_shoe(camera)
        target = TARGET_RSS_CAMERA_MB if camera else TARGET_RSS_MB
        print(f"{label}: start to READY median {statistics.median(times) * 1000:.0f} ms, "
              f"max {max(times) * 1000:.0f} ms over {len(times)} starts "
              f"(target < {TARGET_READY_S * 1000:.0f} ms)")
        print(f"{label}: after a shoe ({rounds} rounds) VmRSS {mem['VmRSS']:.1f} MB, peak "
              f"VmHWM {mem['VmHWM']:.1f} MB (target < {target:.0f} MB)")


if __name__ == "__main__":
    main()
