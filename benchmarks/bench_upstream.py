"""Upstream over MQTT on loopback, against a real Mosquitto (issue 8).

1. Card message enqueue to PUBACK: a signed card message is appended to the outbox and the
   publisher notified; the time until the publisher marks it delivered (after the broker's
   PUBACK). One message at a time, ``--cards`` of them (default 5,000): median and p99.
2. Backlog drain after an outage: the backlog a 10-minute broker outage leaves at the
   simulated table's real pace (built directly from a simulated shoe's rounds: betting
   open and closed, each card, the result, three status changes per round), then a larger
   one (``--big``) for a steadier rate; the publisher starts with the broker up and we time
   connect-to-empty. Messages per second.

The outbox is an in-memory one (the journal's SQLite costs are measured by
bench_journal.py); a subscriber (the game server) is connected throughout.

Run: ``.venv/bin/python benchmarks/bench_upstream.py`` (needs /usr/sbin/mosquitto).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the broker fixture and the in-memory outbox live in tests/

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from station.upstream.mqtt import MqttPublisher  # noqa: E402
from station.upstream.mqttlink import MqttLink  # noqa: E402
from station.wire import messages as m  # noqa: E402
from station.wire.signing import Signer  # noqa: E402
from tests.upstream.broker import Broker, Subscriber, wait_until  # noqa: E402
from tests.upstream.outboxes import MemoryOutbox  # noqa: E402

# A status names a journal head (docs/upstream.md); these tests have no journal.
NO_JOURNAL = m.journal_head(bytes(32), 0, bytes(32))

TABLE = "table-1"
# The shipped simulation's pace (README: simulation.pace): open betting 3 s, betting 12 s,
# 1.5 s a card.
OPEN_S, BETTING_S, CARD_S = 3.0, 12.0, 1.5


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def card_latency(broker: Broker, signer: Signer, cards: int) -> list[float]:
    outbox = MemoryOutbox()
    sub = Subscriber(broker.port, f"baccarat/{TABLE}/#", client_id="game-server-lat")
    pub = MqttPublisher(outbox, MqttLink(host="127.0.0.1",
                                                 port=broker.port), table=TABLE, signer=signer)
    pub.start()
    out: list[float] = []
    try:
        wait_until(lambda: pub.connected, 10, "connect")
        shoe = "table-1-20260101T000003Z-1"
        for i in range(1, cards + 1):
            # Signing happens when the journal writes the row, before this clock starts.
            payload = signer.sign(m.card(table=TABLE, seq=i, ts=1.767e9 + i, shoe=shoe,
                                         round_no=i, hand="player", position=1, code="9H"))
            row = outbox.append("events", payload)
            pub.notify()
            while row not in outbox.delivered_at:
                time.sleep(0.00005)
            out.append(outbox.delivered_at[row] - outbox.enqueued_at[row])
    finally:
        pub.stop()
        sub.close()
    return out


def outage_backlog(signer: Signer, outage_s: float) -> list[tuple[str, bytes]]:
    """The messages a table produces in ``outage_s`` at the simulated pace."""
    done = subprocess.run(
        [sys.executable, "-m", "station.cli", "simulate", "--shoes", "3", "--seed", "1",
         "--out", "-", "--announcements", "/dev/null"],
        capture_output=True, text=True, check=True, cwd=REPO)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    rows: list[tuple[str, bytes]] = []
    clock, seq = 0.0, 0

    def add(msg: dict[str, object]) -> None:
        rows.append((m.topic_for(str(msg["kind"])), signer.sign(msg)))

    for r in records:
        cards = len(r["player"]) + len(r["banker"])
        clock += OPEN_S + BETTING_S + CARD_S * cards
        if clock > outage_s:
            break
        shoe, rnd = r["shoe"], r["round"]
        ann = {"shoe": shoe, "round": rnd, "key": r["key"], "open_bets": r.get("open_bets", [])}
        for phase in ("betting_open", "dealing", "between_rounds"):
            seq += 1
            add(m.status(journal=NO_JOURNAL, table=TABLE, seq=seq, ts=clock, phase=phase, shoe=shoe,
                         round_no=rnd, paused=None))
            if phase == "betting_open":
                seq += 1
                add(m.betting_open(ann, table=TABLE, seq=seq, ts=clock))
            elif phase == "dealing":
                seq += 1
                add(m.betting_closed(table=TABLE, seq=seq, ts=clock, shoe=shoe, round_no=rnd))
                for hand in ("player", "banker"):
                    for pos, code in enumerate(r[hand], 1):
                        seq += 1
                        add(m.card(table=TABLE, seq=seq, ts=clock, shoe=shoe, round_no=rnd,
                                   hand=hand, position=pos, code=code))
        seq += 1
        add(m.round_result(r, table=TABLE, seq=seq, ts=clock))
    return rows


def drain(broker: Broker, signer: Signer, rows: list[tuple[str, bytes]], copies: int,
          name: str) -> tuple[int, float]:
    outbox = MemoryOutbox()
    for _ in range(copies):
        for topic, payload in rows:
            outbox.append(topic, payload)
    sub = Subscriber(broker.port, f"baccarat/{TABLE}/#", client_id=f"game-server-{name}")
    pub = MqttPublisher(outbox, MqttLink(host="127.0.0.1",
                                                 port=broker.port), table=TABLE, signer=signer)
    total = outbox.backlog()
    pub.start()
    try:
        wait_until(lambda: pub.connected, 10, "connect", step_s=0.0005)
        t0 = time.perf_counter()
        wait_until(lambda: outbox.backlog() == 0, 600, "the drain", step_s=0.0005)
        elapsed = time.perf_counter() - t0
    finally:
        pub.stop()
        sub.close()
    return total, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=5000)
    parser.add_argument("--outage-s", type=float, default=600.0)
    parser.add_argument("--big", type=int, default=40,
                        help="the big backlog: this many 10-minute outages' worth")
    args = parser.parse_args()
    signer = Signer(Ed25519PrivateKey.generate())
    with tempfile.TemporaryDirectory() as tmp:
        broker = Broker(Path(tmp) / "broker")
        broker.start()
        try:
            lat = card_latency(broker, signer, args.cards)
            rows = outage_backlog(signer, args.outage_s)
            small = drain(broker, signer, rows, 1, "small")
            big = drain(broker, signer, rows, args.big, "big")
        finally:
            broker.kill()
    ms = [x * 1000 for x in lat]
    print(f"machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}, mosquitto {broker.version()}")
    print(f"card enqueue -> PUBACK over {len(ms)} cards: median {statistics.median(ms):.3f} ms, "
          f"p99 {pct(ms, 0.99):.3f} ms, max {max(ms):.3f} ms (target p99 < 5 ms)")
    for label, (total, secs) in (("10-minute outage", small),
                                 (f"{args.big} x 10-minute outage", big)):
        print(f"drain after a {label}: {total} messages in {secs * 1000:.1f} ms = "
              f"{total / secs:,.0f} msg/s (target >= 5,000/s)")


if __name__ == "__main__":
    main()
