"""Benchmark of the pit's JSON (station.services.pit.views): what a floor of N tables costs the pit
each time it pushes the floor (at most every 200 ms) and each time a table's page asks.

The floor is the page tests' (tests/pit/pagekit.py): a simulated station's shoe re-signed
for each table, cut at spread points, some tables paused, one offline, folded in process by
the client library as the pit folds it. Reports the median time to build the ``tables`` body
(tiles with their words in both languages) and its size in JSON, and the same for one
table's page (its roads panel drawn in both languages).

    .venv/bin/python benchmarks/bench_pit_views.py [--tables 200] [--repeat 21]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from station.client import Applied, Floor, schema_validator  # noqa: E402
from station.services.pit import views  # noqa: E402
from station.services.pit.alerts import Alert  # noqa: E402
from tests.pit.pagekit import base_shoe, plan  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--repeat", type=int, default=21)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shoe = base_shoe(Path(tmp))
    tables = plan(shoe, args.tables, paused=max(1, args.tables // 20))
    floor = Floor({t.id: t.key.public_key() for t, _ in tables}, validate=schema_validator())
    logs = {t.id: views.TableLog() for t, _ in tables}
    alerts: list[Alert] = []
    for t, upto in tables:
        for topic, payload in t.payloads(shoe, upto, now=time.time()):
            for f in floor.feed(topic, payload):
                if isinstance(f, Applied):
                    logs[t.id].add(f.message)
        s = floor.state(t.id)
        if s.pause is not None:
            alerts.append(Alert(len(alerts) + 1, t.id, "pause", s.pause.reason,
                                      s.pause.raised_by, s.pause.ts))
    seen = views.Seen("2026-01-01T00:00:00.000Z", 0.2)

    def floor_body() -> bytes:
        return orjson.dumps(views.floor_view("pit", "2026-01-01T00:00:00.000Z",
                                             [(floor.state(t), seen) for t in floor.tables],
                                             alerts))

    deepest = max(logs, key=lambda t: len(logs[t].results))

    def table_body() -> bytes:
        return orjson.dumps(views.table_view(floor.state(deepest), seen, [], logs[deepest]))

    for name, build in (("floor (tables event)", floor_body), (f"table {deepest}", table_body)):
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            body = build()
            times.append(time.perf_counter() - t0)
        print(f"{name}: {args.tables} tables, median {statistics.median(times) * 1000:.1f} ms, "
              f"max {max(times) * 1000:.1f} ms, {len(body) / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
