"""A real pit under wrong sign-ins (issue 31): its RSS before and after, the checked guesses
per account whatever the addresses, and TLS's cost on a page's first load.

Starts ``station pit`` (no broker needed for its pages), then sends wrong sign-ins (POST
/api/alerts/ack) from many loopback addresses (127.0.0.2, ...: the per-address budget is
per address), N at once, and reads the pit's VmRSS from /proc. Then the same pit over TLS
and in clear: a new connection and GET / of the floor page, the median of --loads.

    .venv/bin/python benchmarks/bench_pit_signins.py [--signins 1000] [--parallel 60]
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import sqlite3
import ssl
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.pit.pitkit import Pit, PitFolder
from tests.tlskit import make_ca


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def wrong(port: int, i: int, name: str) -> int:
    source = f"127.0.{1 + i // 250 % 250}.{2 + i % 250}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300,
                                      source_address=(source, 0))
    try:
        body = json.dumps({"name": name, "pin": f"{1000 + i}", "kind": "pause"})
        conn.request("POST", "/api/alerts/ack", body,
                     {"Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def first_load(port: int, ctx: ssl.SSLContext | None) -> float:
    t0 = time.perf_counter()
    conn: http.client.HTTPConnection = (
        http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=30) if ctx
        else http.client.HTTPConnection("127.0.0.1", port, timeout=30))
    try:
        conn.request("GET", "/?lang=en")
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 200
    finally:
        conn.close()
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--signins", type=int, default=1000)
    ap.add_argument("--parallel", type=int, default=60)
    ap.add_argument("--loads", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        keys = root / "keys"
        keys.mkdir()
        folder = PitFolder(root / "pit")
        pit = Pit(folder.config(1, keys), folder.port)
        try:
            time.sleep(1)
            cold = rss_mib(pit.proc.pid)
            # A warm-up of 100, so the SQLite page cache and aiohttp's buffers are counted
            # apart from what the checks themselves keep.
            with ThreadPoolExecutor(args.parallel) as pool:
                list(pool.map(lambda i: wrong(folder.port, 9000 + i, f"w{i}"), range(100)))
            before = rss_mib(pit.proc.pid)
            with ThreadPoolExecutor(args.parallel) as pool:
                codes = list(pool.map(lambda i: wrong(folder.port, i, f"n{i % 200}"),
                                      range(args.signins)))
            time.sleep(1)
            after = rss_mib(pit.proc.pid)
            with ThreadPoolExecutor(args.parallel) as pool:
                one = list(pool.map(lambda i: wrong(folder.port, 5000 + i, "ann"),
                                    range(200)))
        finally:
            pit.stop()
            pit.close()
        with sqlite3.connect(folder.journal) as db:
            checked = db.execute("SELECT count(*) FROM sign_ins WHERE verdict = 'wrong'"
                                 " AND name = 'ann'").fetchone()[0]
        print(f"pit: {args.signins} wrong sign-ins ({codes.count(401)} answered 401, "
              f"{codes.count(429)} 429), {args.parallel} at once from "
              f"{min(args.signins, 250)}+ addresses: RSS {before:.1f} -> {after:.1f} MiB "
              f"({(after - before) / before * 100:+.1f} %; {cold:.1f} MiB before the "
              "warm-up of 100)")
        print(f"pit: 200 guesses at ann from 200 addresses, {args.parallel} at once: "
              f"{checked} checked ({one.count(401)} answered 401)")
        ca = make_ca(root / "ca")
        tls_folder = PitFolder(root / "tls")
        plain_pit = Pit(tls_folder.config(1, keys), tls_folder.port)
        try:
            plain = [first_load(tls_folder.port, None) for _ in range(args.loads)]
        finally:
            plain_pit.stop()
            plain_pit.close()
        config = tls_folder.config(1, keys, extra_pit=f", tls: {ca.tls_yaml()}")
        tls_pit = Pit(config, tls_folder.port, ca=ca.ca)
        ctx = ssl.create_default_context(cafile=str(ca.ca))
        try:
            tls = [first_load(tls_folder.port, ctx) for _ in range(args.loads)]
        finally:
            tls_pit.stop()
            tls_pit.close()
        p50, t50 = statistics.median(plain), statistics.median(tls)
        print(f"first load of / (new connection + GET, median of {args.loads}): plain "
              f"{p50:.2f} ms, TLS {t50:.2f} ms: TLS adds {t50 - p50:.2f} ms")
    socket.setdefaulttimeout(None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
