"""Benchmark of a scanner sending line noise into the real daemon (issue 18).

    .venv/bin/python benchmarks/bench_noise.py [--mb 10] [--repeat 3]

Each run starts ``station run`` with a serial scanner on a pty and the web display, starts a
shoe, writes ``--mb`` MB of random bytes into the scanner's pty, and measures: how long until
every frame is journaled (as the gate's summaries count them), how long a supervisor's resume
sent then takes to be applied (the campaign saw 5 s), the journal's size on disk, the largest
message and view, and the daemon's RSS before and after. The ceilings themselves are asserted
by tests/abuse/test_noisy_scanner.py; the times here are figures, never a test's assertion.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the test kit drives the daemon as the abuse test does

from drivers.framing import FrameParser  # noqa: E402
from drivers.sim_serial import PtyScanner  # noqa: E402
from tests import webkit  # noqa: E402
from tests.abuse.test_noisy_scanner import (  # noqa: E402
    line_noise,
    messages,
    rss_bytes,
    scanner_events,
    view_bytes,
    wait_journaled,
)
from tests.webkit import PIN, SUPERVISOR  # noqa: E402


def one_run(noise: bytes, frames: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-noise-") as name:
        tmp = Path(name)
        journal = tmp / "journal.sqlite3"
        with PtyScanner(tmp / "scanner") as pty:
            config = webkit.live_config(tmp, pty.path)
            with webkit.running(config) as proc:
                base = webkit.url_of(config)
                webkit.wait_reading(proc, pty.path)
                assert webkit.command(base, "new-shoe")[0] == 200
                idle = rss_bytes(proc.pid)
                start = time.perf_counter()
                pty.write(noise)
                wait_journaled(journal, frames, timeout_s=3600)
                journaled_s = time.perf_counter() - start
                view = len(view_bytes(base))
                after = rss_bytes(proc.pid)
                sent = time.perf_counter()
                assert webkit.command(base, "resume", actor=SUPERVISOR, pin=PIN)[0] == 200
                webkit.wait_state(base, lambda s: not s["paused"], timeout_s=60,
                                  what="the resume applied")
                resume_s = time.perf_counter() - sent
        on_disk = sum(p.stat().st_size for p in tmp.glob("journal.sqlite3*"))
        return {"journaled_s": journaled_s, "resume_s": resume_s,
                "events": len(scanner_events(journal)),
                "journal_kb": on_disk / 1024, "message_max": max(map(len, messages(journal))),
                "view": view, "rss_idle_mb": idle / 2**20, "rss_after_mb": after / 2**20}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=10.0, help="MB of noise per run")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    noise = line_noise(int(args.mb * 1024 * 1024))
    frames = len(FrameParser("cr").feed(noise))
    runs = [one_run(noise, frames) for _ in range(args.repeat)]
    print(f"{args.mb:g} MB of line noise, {frames} bad frames, {args.repeat} runs:")
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(f"  {key}: median {statistics.median(values):,.3f}, max {max(values):,.3f}")


if __name__ == "__main__":
    main()
