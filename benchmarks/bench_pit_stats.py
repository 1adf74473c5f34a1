"""How long ``station pit report`` takes over a shift: ``--tables`` tables (default 200) for
``--hours`` hours (default 8) at the simulation's default pace, in a pit journal laid out as
the pit service writes it (the ``seen`` table of docs/pit.md).

The streams are real stations' (``station simulate --messages``, with a dealer and a relief
every shoe and a few faults), ``--seeds`` of them, each table a copy of one under its own id
and its dealers (statistics do not verify signatures, so renaming is enough); the rows go
into the journal interleaved by time, as the pit receives them. Then the report, end to end
in a fresh interpreter (``python -m station.services.pit.report report ... --out FILE``), by table
and by dealer: wall time, CPU time and the child's peak RSS, median (min-max) over ``--runs``;
and in process, the SQL read alone against read and fold.

    .venv/bin/python benchmarks/bench_pit_stats.py [--tables 200] [--hours 8] [--runs 3]
"""

from __future__ import annotations

import argparse
import heapq
import math
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from station.services.pit import report  # noqa: E402
from station.services.pit.stats import READ_KINDS, compute  # noqa: E402

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SHOE_S = 1950.0  # about one 8-deck shoe at the default pace
FAULTS: list[dict[str, Any]] = [
    {"kind": "garbled", "card": 15}, {"kind": "not_due", "after_round": 3},
    {"kind": "lost", "card": 25, "seconds": 30}, {"kind": "not_due", "after_round": 10, "shoe": 2},
    {"kind": "garbled", "card": 40, "shoe": 5}]
SEEN = ("CREATE TABLE seen (id INTEGER PRIMARY KEY, at TEXT NOT NULL, table_id TEXT NOT NULL, "
        "kind TEXT NOT NULL, seq INTEGER, key TEXT NOT NULL, body TEXT NOT NULL, "
        "UNIQUE (table_id, key))")


def stream(tmp: Path, seed: int, hours: float) -> list[bytes]:
    shoes = math.ceil(hours * 3600 / SHOE_S) + 1
    supervisor = "void" if seed % 2 else "resume"
    cfg = {"table": {"id": "tbl"},
           "simulation": {"seed": seed, "shoes": shoes, "supervisor": supervisor,
                          "dealer_badge": "DEALER-D1", "relief_badge": "DEALER-D2",
                          "dealer_change_shoes": 1},
           "display": {"type": "none"}, "upstream": {"type": "file", "path": "up.jsonl"}}
    config, faults = tmp / f"s{seed}.yaml", tmp / f"f{seed}.yaml"
    config.write_text(yaml.safe_dump(cfg))
    faults.write_text(yaml.safe_dump([f for f in FAULTS if f.get("shoe", 1) <= shoes]))
    out = tmp / f"m{seed}.jsonl"
    subprocess.run([sys.executable, "-m", "station.cli", "simulate", "-c", str(config),
                    "--seed", str(seed), "--shoes", str(shoes), "--faults", str(faults),
                    "--supervisor", supervisor,
                    "--messages", str(out)], check=True, capture_output=True)
    end = (T0 + timedelta(hours=hours)).isoformat().replace("+00:00", "")
    return [line for line in out.read_bytes().splitlines()
            if orjson.loads(line)["ts"] < end]


def table_rows(base: list[bytes], n: int) -> Iterator[tuple[str, str, str, int | None, str,
                                                             str]]:
    name = f"tbl-{n:03d}"
    for line in base:
        # Each table its own two dealers, as a floor has (400 for 200 tables).
        body = (line.replace(b'"tbl', b'"' + name.encode())
                .replace(b'"D1"', f'"D{n:03d}a"'.encode())
                .replace(b'"D2"', f'"D{n:03d}b"'.encode()).decode())
        m = orjson.loads(body)
        yield m["ts"], name, m["kind"], m.get("seq"), m["key"], body


def build(path: Path, tables: int, seeds: int, hours: float, tmp: Path) -> int:
    bases = [stream(tmp, seed, hours) for seed in range(1, seeds + 1)]
    rows = heapq.merge(*(table_rows(bases[n % seeds], n) for n in range(tables)))
    count = 0
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(SEEN)
        batch = []
        for row in rows:
            batch.append(row)
            if len(batch) == 10000:
                db.executemany("INSERT INTO seen (at, table_id, kind, seq, key, body) VALUES "
                               "(?, ?, ?, ?, ?, ?)", batch)
                count += len(batch)
                batch.clear()
        db.executemany("INSERT INTO seen (at, table_id, kind, seq, key, body) VALUES "
                       "(?, ?, ?, ?, ?, ?)", batch)
        count += len(batch)
        db.commit()
    return count


def run_report(config: Path, hours: float, by: str, out: Path) -> tuple[float, float, float]:
    """Wall time, CPU time (user + system: less swayed by a busy machine) and peak RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "station.services.pit.report", "report", "-c",
    str(config),
                    "--from", T0.isoformat(), "--to", (T0 + timedelta(hours=hours)).isoformat(),
                    "--by", by, "--out", str(out)], check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024


def fmt(xs: list[float], unit: str) -> str:
    return f"{statistics.median(xs):.2f} {unit} ({min(xs):.2f}-{max(xs):.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--hours", type=float, default=8.0)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        journal = tmp / "pit.sqlite"
        t = time.perf_counter()
        rows = build(journal, args.tables, args.seeds, args.hours, tmp)
        print(f"journal: {rows:,} rows, {journal.stat().st_size / 2**20:,.0f} MiB, built in "
              f"{time.perf_counter() - t:.0f} s")
        with closing(sqlite3.connect(journal)) as db:
            kinds = dict(db.execute("SELECT kind, count(*) FROM seen GROUP BY kind"))
            print("rows by kind:", ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items())))
        config = tmp / "pit.yaml"
        config.write_text(f"pit: {{journal: {journal}}}\n")  # absolute: read from any folder
        end = T0 + timedelta(hours=args.hours)
        for by in ("table", "dealer"):
            walls, cpus, rss = [], [], []
            for _ in range(args.runs):
                w, c, r = run_report(config, args.hours, by, tmp / "out.csv")
                walls.append(w)
                cpus.append(c)
                rss.append(r)
            print(f"report --by {by}: wall {fmt(walls, 's')}, CPU {fmt(cpus, 's')}, peak RSS "
                  f"{max(rss):.0f} MB")
        reads, folds = [], []
        for _ in range(args.runs):
            with closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
                t = time.perf_counter()
                n = sum(1 for _ in report._rows(db, journal, T0, end))
                reads.append(time.perf_counter() - t)
            t = time.perf_counter()
            result = report.load_stats(journal, T0, end)
            folds.append(time.perf_counter() - t)
        print(f"in process: the SQL read of {n:,} rows ({', '.join(READ_KINDS)}) "
              f"{fmt(reads, 's')}; read and fold {fmt(folds, 's')}")
        rounds = sum(g["rounds"] for g in result["tables"])
        print(f"{len(result['tables'])} tables, {len(result['dealers'])} dealers, "
              f"{rounds:,} rounds, {sum(g['pauses'] for g in result['tables']):,} pauses")
        assert compute([], T0, end)["tables"] == []


if __name__ == "__main__":
    main()
