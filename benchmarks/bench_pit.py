"""Benchmark of ``station pit`` (issue 23): a floor of tables on one broker, what the pit
shows and when, and what it costs.

    .venv/bin/python benchmarks/bench_pit.py [--tables 200] [--fast 20] [--pace 0.5]
        [--fast-rate 12.5] [--seconds 120]

A Mosquitto of the test suite's (loopback, a free port), the real ``station pit`` process,
and one publisher process standing in for the tables (220 ``station run`` processes would
need 15 GB, docs/benchmarks.md "A fleet"): each table replays a signed, schema-valid stream
of its own (``station simulate --messages``, renumbered and signed with the table's own
key, its ``ts`` the time of sending) at ``--pace`` messages a second (0.5: a dealer's pace,
as the fleet measured it) or, for the ``--fast`` tables, ``--fast-rate`` (12.5: the fleet's
0.2 s a card). Probes, in the tables' own streams:

- message to floor page: every 0.5 s a probe table signs in a new dealer; the time from its
  publish to the first ``event: tables`` of ``/api/events`` whose tile shows that dealer;
- alert raised to alert shown: every 2 s a probe table pauses (and resumes 1 s later); the
  time from the pause's publish to its ``event: alert``.

And the pit's CPU (from /proc, over the run) and resident memory (sampled every 5 s; its
curve, one figure a minute, printed to stderr as it goes and in the result). Linux only
(/proc).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the broker fixture and the pit's kit live in tests/

import paho.mqtt.client as paho  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion  # noqa: E402

from station.wire.signing import Signer, public_pem  # noqa: E402
from tests.pit.pitkit import Pit, PitFolder  # noqa: E402
from tests.upstream.broker import Broker, wait_until  # noqa: E402

CLOCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def base_stream(folder: Path) -> list[dict[str, Any]]:
    out = folder / "base.jsonl"
    subprocess.run([sys.executable, "-m", "station.cli", "simulate", "--shoes", "2", "--seed",
                    "7", "--messages", str(out), "--supervisor", "resume", "--no-bets"],
                   check=True, capture_output=True, cwd=folder)
    return [json.loads(line) for line in out.read_text().splitlines()]


class Table:
    """One table's stream: the base messages renumbered, keyed per cycle, signed."""

    def __init__(self, name: str, base: list[dict[str, Any]], start: int) -> None:
        self.name = name
        self.key = Ed25519PrivateKey.generate()
        self.signer = Signer(self.key)
        self.base = base
        self.at = start
        self.seq = 0
        self.last_event: int | None = None

    def next(self) -> tuple[str, bytes]:
        cycle, index = divmod(self.at, len(self.base))
        self.at += 1
        m = {k: v for k, v in self.base[index].items() if k != "sig"}
        m["key"] = f"{m['key']}~{cycle}"
        return self.sign(m)

    def sign(self, m: dict[str, Any]) -> tuple[str, bytes]:
        self.seq += 1
        m.update(table=self.name, seq=self.seq, ts=now_iso())
        if m["kind"] == "status":
            m.pop("prev_seq", None)
        else:
            m["prev_seq"] = self.last_event
            self.last_event = self.seq
        topic = f"baccarat/{self.name}/{'status' if m['kind'] == 'status' else 'events'}"
        return topic, self.signer.sign(m)

    def probe(self, kind: str, **fields: Any) -> tuple[str, bytes]:
        m = {"v": 1, "kind": kind, "key": f"{self.name}:{kind}:probe:{self.seq + 1}",
             **fields}
        return self.sign(m)


class Sse(threading.Thread):
    """Reads /api/events; records when each probe dealer and probe pause first shows."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.dealers: dict[tuple[str, str], float] = {}
        self.alerts: dict[str, float] = {}  # table -> the last pause alert's arrival
        self.alert_times: list[tuple[str, float]] = []
        self.frames = 0
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", "/api/events")
        resp = conn.getresponse()
        name = ""
        while not self.stop.is_set():
            line = resp.readline()
            if not line:
                return
            text = line.decode().rstrip("\n")
            if text.startswith("event: "):
                name = text[7:]
            elif text.startswith("data: "):
                at = time.monotonic()
                body = json.loads(text[6:])
                self.frames += 1
                if name == "tables":
                    for tile in body["tables"]:
                        if tile["dealer"] and tile["dealer"].startswith("P"):
                            self.dealers.setdefault((tile["table"], tile["dealer"]), at)
                elif name == "alert" and body["kind"] == "pause":
                    self.alert_times.append((body["table"], at))


def proc_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK


def proc_rss_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 1e6


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--tables", type=int, default=200, help="tables at --pace")
    ap.add_argument("--fast", type=int, default=20, help="tables at --fast-rate")
    ap.add_argument("--pace", type=float, default=0.5, help="messages/s of a table")
    ap.add_argument("--fast-rate", type=float, default=12.5, help="messages/s of a fast one")
    ap.add_argument("--seconds", type=float, default=120.0)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-pit-"))
    base = base_stream(work)
    tables = [Table(f"r-{n:03d}", base, n * 37) for n in range(1, args.tables + 1)]
    tables += [Table(f"f-{n:02d}", base, n * 53) for n in range(1, args.fast + 1)]
    keys = work / "keys"
    keys.mkdir()
    for t in tables:
        (keys / f"{t.name}.pub").write_bytes(public_pem(t.key.public_key()))
    broker = Broker(work / "broker")
    broker.start()
    folder = PitFolder(work / "pit")
    pit = Pit(folder.config(broker.port, keys), folder.port)
    pid = pit.proc.pid
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-tables",
                         protocol=MQTTProtocolVersion.MQTTv5)
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    sse = Sse(folder.port)
    sse.start()
    wait_until(lambda: sse.frames > 0, 30, "the first SSE frame")
    probes = tables[:10]
    alarms = tables[10:20] or tables[-1:]  # a small run (the smoke test) shares its tables
    sent_dealer: dict[tuple[str, str], float] = {}
    sent_pause: list[tuple[str, float]] = []
    rss: list[float] = []
    schedule = [(1.0 / (args.pace if t.name.startswith("r") else args.fast_rate), t)
                for t in tables]
    due = [time.monotonic() + (i % 100) / 100 for i in range(len(tables))]
    start = time.monotonic()
    cpu0 = proc_cpu_s(pid)
    next_probe, next_alarm, next_rss, n_probe, n_alarm = start + 1, start + 1.5, start, 0, 0
    resumes: list[tuple[float, Table]] = []
    published = 0
    while (now := time.monotonic()) < start + args.seconds:
        for i, (gap, t) in enumerate(schedule):
            while due[i] <= now:
                client.publish(*t.next(), qos=1)
                published += 1
                due[i] += gap
        if now >= next_probe:
            t = probes[n_probe % len(probes)]
            n_probe += 1
            dealer = f"P{n_probe}"
            topic, payload = t.probe("dealer", dealer=dealer, previous=None,
                                     action="sign_in", how="badge", request_closed=False)
            sent_dealer[(t.name, dealer)] = time.monotonic()
            client.publish(topic, payload, qos=1)
            next_probe += 0.5
        if now >= next_alarm:
            t = alarms[n_alarm % len(alarms)]
            n_alarm += 1
            topic, payload = t.probe("pause", reason=f"bench pause {n_alarm}", shoe=None,
                                     round=None)
            sent_pause.append((t.name, time.monotonic()))
            client.publish(topic, payload, qos=1)
            resumes.append((now + 1.0, t))
            next_alarm += 2.0
        for when, t in [r for r in resumes if r[0] <= now]:
            resumes.remove((when, t))
            client.publish(*t.probe("resume", by="supervisor:bench", shoe=None, round=None),
                           qos=1)
        if now >= next_rss:
            rss.append(proc_rss_mb(pid))
            if (len(rss) - 1) % 12 == 0:  # a minute of 5 s samples
                print(f"{(len(rss) - 1) // 12:4d} min  RSS {rss[-1]:.1f} MB", file=sys.stderr,
                      flush=True)
            next_rss += 5.0
        time.sleep(0.005)
    elapsed = time.monotonic() - start
    cpu = proc_cpu_s(pid) - cpu0
    time.sleep(3)  # the last probes arrive
    lat = [(sse.dealers[k] - t0) * 1000 for k, t0 in sent_dealer.items() if k in sse.dealers]
    alert_lat = []
    shown = list(sse.alert_times)
    for table, t0 in sent_pause:
        seen = next((at for (tb, at) in shown if tb == table and at >= t0), None)
        if seen is not None:
            alert_lat.append((seen - t0) * 1000)
            shown.remove((table, seen))
    floor = pit.get("/api/tables")["tables"]
    problems = [a for a in pit.get("/api/alerts")["alerts"] if a["kind"] != "pause"]
    result = {
        "python": platform.python_version(), "mosquitto": broker.version(),
        "tables": args.tables, "fast": args.fast, "pace": args.pace,
        "fast_rate": args.fast_rate, "seconds": round(elapsed, 1),
        "published_per_s": round(published / elapsed, 1),
        "tiles": len(floor), "stream_alerts": len(problems),
        "message_to_floor_ms": {"n": len(lat), "missed": len(sent_dealer) - len(lat),
                                "p50": round(statistics.median(lat), 1),
                                "p90": round(pct(lat, 90), 1), "p95": round(pct(lat, 95), 1),
                                "p99": round(pct(lat, 99), 1), "max": round(max(lat), 1)},
        "alert_to_shown_ms": {"n": len(alert_lat), "missed": len(sent_pause) - len(alert_lat),
                              "p50": round(statistics.median(alert_lat), 1),
                              "p95": round(pct(alert_lat, 95), 1),
                              "p99": round(pct(alert_lat, 99), 1),
                              "max": round(max(alert_lat), 1)},
        "pit_cpu_core": round(cpu / elapsed, 3),
        "pit_rss_mb": {"first": round(rss[0], 1), "last": round(rss[-1], 1),
                       "max": round(max(rss), 1)},
        "pit_rss_mb_by_minute": [round(r, 1) for r in rss[::12]],
        "load": os.getloadavg(),
    }
    print(json.dumps(result, indent=1))
    sse.stop.set()
    client.loop_stop()
    pit.stop()
    pit.close()
    broker.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
