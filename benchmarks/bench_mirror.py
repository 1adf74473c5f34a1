"""The journal mirror and the archive, against a real Mosquitto (issue 24).

1. Card to PUBACK, with and without the mirror: a signed card message is journaled (a real
   journal, SQLite, fsync) with its event, the publisher notified, and the time from the
   append's return until the publisher marks the row delivered after the broker's PUBACK.
   One card at a time, ``--gap-ms`` after the last one's PUBACK (20 ms; a table deals one
   every 1.5 s), in alternating blocks: without the mirror, with the mirror in clear on an
   open broker (before issue 32), and with the mirror sealed for the archive (each record
   HPKE-sealed) over TLS with the table's client certificate to the studio's locked broker
   (the profile of ``station broker-config``, tests/brokerkit.py's CA).
2. The archive (the real ``station archive`` process, opening each sealed record) fed 200
   tables at the shipped simulation's pace (a round every 22.5 s: 7 journal records, from a
   real ``station run`` journal) for ``--pace-s`` seconds: the most records waiting to be
   written at any time, and how long after the last record it holds everything.
3. A 10-minute outage of 20 tables: the archive away while the broker queues 10 minutes of
   those tables' records for its session, then started; the time from its start to every
   record written and verified.

Run: ``.venv/bin/python benchmarks/bench_mirror.py`` (needs /usr/sbin/mosquitto).
"""

from __future__ import annotations

import argparse
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the broker fixture and the kits live in tests/

import paho.mqtt.client as paho  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion  # noqa: E402

from drivers.events import CardRead  # noqa: E402
from station.journal import Journal  # noqa: E402
from station.table.tablerules import TableRules  # noqa: E402
from station.upstream.mirror import JournalMirror, mark_path, write_mark  # noqa: E402
from station.upstream.mqtt import MqttPublisher  # noqa: E402
from station.upstream.mqttlink import MqttLink, TlsSettings  # noqa: E402
from station.wire import messages as m  # noqa: E402
from station.wire.sealing import Sealer  # noqa: E402
from station.wire.signing import Signer, public_pem  # noqa: E402
from tests.archive.archivekit import (  # noqa: E402
    MIRROR_KEY,
    head_of,
    start_archive,
    write_archive_config,
)
from tests.brokerkit import Studio, locked_studio  # noqa: E402
from tests.stationkit import STATION, table_config, write_key  # noqa: E402
from tests.upstream.broker import Broker, Subscriber, wait_until  # noqa: E402

TABLE = "table-1"
ROUND_S = 22.5  # open betting 3 s, betting 12 s, five cards at 1.5 s
RECORDS_PER_ROUND = 7  # measured on a simulated shoe: 561 records for 80 rounds


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Timed:
    """The journal's outbox, noting when each row is marked delivered."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.delivered_at: dict[int, float] = {}

    def pending(self, limit: int):  # type: ignore[no-untyped-def]
        return self.journal.pending(limit)

    def mark_delivered(self, ids):  # type: ignore[no-untyped-def]
        self.journal.mark_delivered(ids)
        now = time.perf_counter()
        for i in ids:
            self.delivered_at[i] = now

    def backlog(self) -> int:
        return self.journal.backlog()


SEALER = Sealer(MIRROR_KEY.public_key())
VARIANTS = ("mirror off", "mirror in clear", "TLS + mirror in clear", "TLS + sealed mirror")


def latency_block(link: MqttLink, journal: Journal, signer: Signer, *, cards: int,
                  variant: str, gap_s: float) -> list[float]:
    box = Timed(journal)
    feed = None
    if variant != "mirror off":
        write_mark(mark_path(journal.path), journal.journal_id, journal.last_seq + 1)
        feed = JournalMirror(journal.path, table=TABLE, signer=signer,
                             sealer=SEALER if variant.endswith("sealed mirror") else None)
    pub = MqttPublisher(box, link, table=TABLE, signer=signer, mirror=feed)
    pub.start()
    out: list[float] = []
    try:
        wait_until(lambda: pub.connected, 10, "connect")
        shoe = "table-1-20260101T000003Z-1"
        for _ in range(cards):
            n = journal.last_seq + 1
            payload = signer.sign(m.card(table=TABLE, seq=n, ts=1.767e9 + n, shoe=shoe,
                                         round_no=n, hand="player", position=1, code="9H"))
            journal.append(CardRead("9H", "scanner", 1.767e9 + n), time.time(),
                           time.monotonic(), [("events", payload)])
            row = journal.last_outbox_row()
            assert row is not None
            t0 = time.perf_counter()
            pub.notify()
            while row.id not in box.delivered_at:
                time.sleep(0.00005)
            out.append(box.delivered_at[row.id] - t0)
            time.sleep(gap_s)  # cards come 1.5 s apart at a table; this is far closer
    finally:
        pub.stop()
    return out


def card_latency(broker: Broker, studio: Studio, folder: Path, *, cards: int, blocks: int,
                 gap_s: float) -> dict[str, list[float]]:
    signer = Signer(Ed25519PrivateKey.generate())
    # The game server takes the events topic; the journal topic is the archive's, on
    # another machine (a subscriber to it here would only compete for this process's CPU).
    sub = Subscriber(broker.port, f"baccarat/{TABLE}/events", client_id="game-server-lat")
    locked_sub = studio.party("game-gs1")
    locked_sub.wait()
    locked_sub.subscribe(f"baccarat/{TABLE}/events")
    files = studio.files(f"station-{TABLE}")
    locked = MqttLink(host="127.0.0.1", port=studio.port, tls=TlsSettings(
        Path(files["ca_file"]), Path(files["cert_file"]), Path(files["key_file"])))
    links = {
        "mirror off": MqttLink(host="127.0.0.1", port=broker.port),
        "mirror in clear": MqttLink(host="127.0.0.1", port=broker.port),
        "TLS + mirror in clear": locked,  # what TLS costs alone, to tell it from sealing
        "TLS + sealed mirror": locked,
    }
    results: dict[str, list[float]] = {v: [] for v in VARIANTS}
    try:
        with Journal.create(folder / "lat.sqlite3", TableRules(), None, "bench") as journal:
            for _ in range(blocks):
                for variant in VARIANTS:
                    results[variant] += latency_block(links[variant], journal, signer,
                                                      cards=cards // blocks, variant=variant,
                                                      gap_s=gap_s)
    finally:
        sub.close()
        locked_sub.close()
    return results


# --- the archive ---------------------------------------------------------------------------


def real_journal(folder: Path) -> Path:
    """A simulated shoe's journal, from a real ``station run`` (fast pace, file upstream)."""
    folder.mkdir(parents=True)
    key, _ = write_key(folder)
    config = table_config(folder, seed=7, upstream={"type": "file",
                                                    "path": str(folder / "up.jsonl"),
                                                    "signing_key_file": str(key)})
    subprocess.run([STATION, "run", "-c", str(config)], cwd=folder, check=True,
                   capture_output=True, timeout=300)
    return folder / "journal.sqlite3"


def table_messages(journal: Path, tables: list[str], signer: Signer, records: int
                   ) -> dict[str, list[bytes]]:
    """Each table's mirror of the journal's header and first ``records`` records."""
    out: dict[str, list[bytes]] = {}
    for table in tables:
        mirror = JournalMirror(journal, table=table, signer=signer, sealer=SEALER)
        items = mirror.take(records + 1)
        mirror.close()
        out[table] = [p for item in items for p in item.payloads]
    return out


def publisher(port: int) -> paho.Client:
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-stations",
                         protocol=MQTTProtocolVersion.MQTTv5)
    client.max_inflight_messages_set(1000)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def site(broker: Broker, folder: Path, tables: list[str], signer: Signer) -> Path:
    keys = folder / "keys"
    keys.mkdir(parents=True)
    pem = public_pem(signer.public_key())
    for table in tables:
        (keys / f"{table}.pub.pem").write_bytes(pem)
    config, _ = write_archive_config(folder / "archive", broker, keys)
    return config


def held(config: Path, tables: list[str]) -> int:
    """Records the archive holds, over every table."""
    root = config.parent / "journals"
    total = 0
    for table in tables:
        for path in (root / table).glob("*.sqlite3") if (root / table).is_dir() else ():
            total += max(0, head_of(path)[0])
    return total


def connected(config: Path) -> bool:
    log = config.parent / "archive.log"
    return log.exists() and "connected" in log.read_text()


def at_pace(broker: Broker, folder: Path, source: Path, tables: int, pace_s: float
            ) -> tuple[int, int, float]:
    """(records published, most waiting at once, seconds from the last to all held)."""
    signer = Signer(Ed25519PrivateKey.generate())
    names = [f"t{i:03d}" for i in range(tables)]
    per_table = int(pace_s / ROUND_S * RECORDS_PER_ROUND) + 1
    msgs = table_messages(source, names, signer, per_table)
    config = site(broker, folder, names, signer)
    archive = start_archive(config)
    client = publisher(broker.port)
    rng = random.Random(1)
    try:
        wait_until(lambda: connected(config), 30, "the archive")
        gap = ROUND_S / RECORDS_PER_ROUND
        schedule = sorted((rng.uniform(0, gap) + k * gap, t, k)
                          for t in names for k in range(len(msgs[t])))
        start = time.monotonic()
        worst, sent, next_look = 0, 0, start + 1.0
        for at, table, k in schedule:
            now = time.monotonic()
            if at > now - start:
                time.sleep(at - (now - start))
            client.publish(f"baccarat/{table}/journal", msgs[table][k], qos=1)
            sent += k > 0  # records; a header is not one
            if time.monotonic() > next_look:
                next_look = time.monotonic() + 1.0
                worst = max(worst, sent - held(config, names))
        end = time.monotonic()
        records = sum(len(v) - 1 for v in msgs.values())
        wait_until(lambda: held(config, names) >= records, 600, "the archive", step_s=0.05)
        return records, worst, time.monotonic() - end
    finally:
        client.disconnect()
        client.loop_stop()
        archive.send_signal(signal.SIGTERM)
        archive.wait(60)


def outage(broker: Broker, folder: Path, source: Path, tables: int, outage_s: float
           ) -> tuple[int, float]:
    """(records queued, seconds from the archive's start to every one written)."""
    signer = Signer(Ed25519PrivateKey.generate())
    names = [f"o{i:02d}" for i in range(tables)]
    per_table = int(outage_s / ROUND_S * RECORDS_PER_ROUND)
    msgs = table_messages(source, names, signer, per_table)
    config = site(broker, folder, names, signer)
    archive = start_archive(config)  # once, so the broker has its session and queues
    wait_until(lambda: connected(config), 30, "the archive")
    archive.send_signal(signal.SIGTERM)
    archive.wait(60)
    client = publisher(broker.port)
    try:
        infos = [client.publish(f"baccarat/{t}/journal", p, qos=1)
                 for t in names for p in msgs[t]]
        for info in infos:
            info.wait_for_publish(60)
    finally:
        client.disconnect()
        client.loop_stop()
    records = sum(len(v) - 1 for v in msgs.values())
    t0 = time.monotonic()
    archive = start_archive(config)
    try:
        wait_until(lambda: held(config, names) >= records, 600, "the drain", step_s=0.05)
        return records, time.monotonic() - t0
    finally:
        archive.send_signal(signal.SIGTERM)
        archive.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=4000)
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--gap-ms", type=float, default=20.0,
                        help="between one card's PUBACK and the next card (a table: 1,500)")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--pace-s", type=float, default=120.0)
    parser.add_argument("--outage-tables", type=int, default=20)
    parser.add_argument("--outage-s", type=float, default=600.0)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-mirror-"))
    broker = Broker(tmp / "broker")
    broker.start()
    studio = locked_studio(tmp / "studio", tables=[TABLE], game_servers=["gs1"])
    try:
        lat = card_latency(broker, studio, tmp, cards=args.cards, blocks=args.blocks,
                           gap_s=args.gap_ms / 1000)
        studio.stop()
        source = real_journal(tmp / "source")
        pace = at_pace(broker, tmp / "pace", source, args.tables, args.pace_s)
        drained = outage(broker, tmp / "outage", source, args.outage_tables, args.outage_s)
    finally:
        studio.stop()
        broker.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}, mosquitto {broker.version()}")
    p99 = {}
    for variant, values in lat.items():
        ms = [x * 1000 for x in values]
        p99[variant] = pct(ms, 0.99)
        print(f"card append -> PUBACK, {variant} over {len(ms)} cards: median "
              f"{statistics.median(ms):.3f} ms, p99 {p99[variant]:.3f} ms, max {max(ms):.3f} ms")
    base = p99["mirror in clear"]
    print(f"p99 with the mirror in clear against none: "
          f"{100 * (base / p99['mirror off'] - 1):+.1f}%")
    print(f"p99 with TLS alone against the mirror in clear: "
          f"{100 * (p99['TLS + mirror in clear'] / base - 1):+.1f}%")
    print(f"p99 with TLS and the sealed mirror against the mirror in clear (today's): "
          f"{100 * (p99['TLS + sealed mirror'] / base - 1):+.1f}% (target <= +10%)")
    records, worst, after = pace
    print(f"archive, {args.tables} tables at the simulated pace for {args.pace_s:g} s: "
          f"{records} records ({records / args.pace_s:.0f}/s); at most {worst} waiting; all "
          f"held {after:.2f} s after the last")
    records, secs = drained
    print(f"archive, a {args.outage_s:g} s outage of {args.outage_tables} tables: {records} "
          f"records written {secs:.2f} s after its start (target < 30 s)")


if __name__ == "__main__":
    main()
