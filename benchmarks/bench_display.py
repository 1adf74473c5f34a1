"""Benchmark of the web display (issue 10).

Targets: an event applied -> the page's DOM updated, p99 under 50 ms over a whole shoe; the
station loop's cost per event with 20 connected pages within 10% of none.

    .venv/bin/python benchmarks/bench_display.py [--pages 20] [--repeat 3] [--card-s 0.02]
        [--pace-s 0.01] [--dir /dev/shm] [--skip-browser]

1. Latency: a real ``station run`` (simulated 8-deck shoe, fast pace, web display) and one
   page in Debian's Chromium. The page stamps each view it renders with ``Date.now()`` minus
   the server's wall-clock time when the view was handed over (right after the event was
   journaled and let out, same machine, same clock).
2. Loop cost: in this process, the time the daemon's loop spends on each event of two shoes
   (``Daemon.submit``: apply, journal with a durable commit, let out, display), one event
   every ``--pace-s``, with the web display and its server running and N pages connected as
   SSE readers in a separate process (reading as fast as a browser would). Compared with none
   connected and with no display.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from drivers.events import InputEvent  # noqa: E402
from drivers.simulated import Pace, SimulatedDealer, random_shoes  # noqa: E402
from station.journal import Journal  # noqa: E402
from station.live.daemon import Daemon  # noqa: E402
from station.table.simulation import simulate  # noqa: E402
from station.table.station import Station  # noqa: E402
from station.table.tablerules import TableRules  # noqa: E402
from station.web.display import WebControl, WebDisplay  # noqa: E402
from station.web.hub import Hub  # noqa: E402
from station.web.pins import PinChecker  # noqa: E402
from station.web.server import WebServer  # noqa: E402
from station.web.view import Surroundings  # noqa: E402
from station.wire.feed import Feed  # noqa: E402
from tests import webkit  # noqa: E402

READERS = r"""
import asyncio, sys
import aiohttp

async def reader(session, url, ready):
    async with session.get(url) as resp:
        ready.append(1)
        if len(ready) == int(sys.argv[2]):
            print("ready", flush=True)
        async for _ in resp.content.iter_any():
            pass

async def main():
    ready = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None)) as s:
        await asyncio.gather(*(reader(s, sys.argv[1], ready) for _ in range(int(sys.argv[2]))))

asyncio.run(main())
"""


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def latency(card_s: float) -> tuple[list[float], int]:
    with tempfile.TemporaryDirectory() as tmp, webkit.browser() as browser:
        config = webkit.sim_config(Path(tmp), card_s=card_s, supervisor="resume", shoes=1)
        text = config.read_text().replace("decks: 1", "decks: 8")
        config.write_text(text.replace(f"open_betting_s: {card_s}", "open_betting_s: 1.0"))
        proc = webkit.start(config)
        try:
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(webkit.url_of(config))
            proc.wait(600)
        finally:
            webkit.stop(proc, config)
        lat = [float(x) for x in page.evaluate("window.__latencies")]
        prompts = len(page.evaluate("window.__prompts"))
        return lat, prompts


def shoe_events(seed: int) -> list[InputEvent]:
    events: list[InputEvent] = []
    station = Station(TableRules())
    dealer = SimulatedDealer(random_shoes(seed, 2, 8), (), pace=Pace(), supervisor="resume",
                             start_ts=1_800_000_000.0)
    simulate(station, dealer, record=events.append)
    return events


def loop_cost(events: list[InputEvent], pages: int, display: bool,
              pace_s: float, journal_dir: str) -> tuple[float, float, float]:
    """Mean and median wall seconds per event spent in ``Daemon.submit``, and the mean CPU
    seconds the loop thread itself used (waiting for a core or the GIL not counted)."""
    with tempfile.TemporaryDirectory(dir=journal_dir) as tmp:
        rules = TableRules()
        station = Station(rules)
        journal = Journal.create(Path(tmp) / "j.sqlite3", rules, None, "bench")
        daemon = Daemon(station, [], journal, Feed(rules.table, rules.decks, None))
        server = readers = None
        try:
            if display:
                hub = Hub()
                shown = WebDisplay(station, hub, Surroundings(rules.table))
                port = webkit.free_port()
                server = WebServer(hub, WebControl(daemon.post, shown), PinChecker(None),
                                   "127.0.0.1", port)
                server.start()
                daemon.display = shown
                if pages:
                    readers = subprocess.Popen(
                        [sys.executable, "-c", READERS, f"http://127.0.0.1:{port}/api/events",
                         str(pages)], stdout=subprocess.PIPE, text=True)
                    assert readers.stdout is not None
                    assert readers.stdout.readline().strip() == "ready"
            times = []
            cpu = []
            for event in events:
                start, start_cpu = time.perf_counter(), time.thread_time()
                daemon.submit(event)
                times.append(time.perf_counter() - start)
                cpu.append(time.thread_time() - start_cpu)
                # Paced like the fast simulation: the cost of one event is what the loop
                # spends on it, not how many it could push through back to back.
                time.sleep(pace_s)
            if server is not None:
                assert server.clients == pages, (server.clients, pages)
        finally:
            if readers is not None:
                readers.kill()
                readers.wait()
            if server is not None:
                server.stop()
            journal.close()
    return statistics.mean(times), statistics.median(times), statistics.mean(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--card-s", type=float, default=0.02)
    parser.add_argument("--pace-s", type=float, default=0.01)
    parser.add_argument("--dir", default="/dev/shm",
                        help="where the journal is written (default /dev/shm: memory, so the "
                        "disk's flush does not hide the display's share)")
    parser.add_argument("--skip-browser", action="store_true")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    if not args.skip_browser:
        lat, prompts = latency(args.card_s)
        print(f"event -> DOM over one 8-deck shoe: {len(lat)} views ({prompts} prompts): "
              f"median {statistics.median(lat):.1f} ms, p90 {pct(lat, 0.9):.1f} ms, "
              f"p99 {pct(lat, 0.99):.1f} ms, max {max(lat):.1f} ms (target p99 < 50 ms)")
    events = shoe_events(7)
    print(f"loop cost: {len(events)} events of two shoes, one every {args.pace_s * 1000:g} ms, "
          f"journal in {args.dir}; "
          f"mean (median) per event, median of {args.repeat} runs")
    results: dict[str, tuple[float, float, float]] = {}
    for name, pages, display in (("no display", 0, False), ("web, no page", 0, True),
                                 (f"web, {args.pages} pages", args.pages, True)):
        runs = [loop_cost(events, pages, display, args.pace_s, args.dir)
                for _ in range(args.repeat)]
        results[name] = tuple(statistics.median(r[i] for r in runs)  # type: ignore[assignment]
                              for i in range(3))
        mean, median, cpu = results[name]
        print(f"  {name:>16}: wall mean {mean * 1e6:7.1f} us, median {median * 1e6:7.1f} us; "
              f"loop CPU {cpu * 1e6:7.1f} us (runs' wall means "
              f"{', '.join(f'{r[0] * 1e6:.0f}' for r in runs)})")
    base = results["web, no page"]
    loaded = results[f"web, {args.pages} pages"]
    for i, what in enumerate(("wall mean", "wall median", "loop CPU")):
        print(f"{args.pages} pages vs none, {what}: {100 * (loaded[i] / base[i] - 1):+.1f}% "
              "(target within 10%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
