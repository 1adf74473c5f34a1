"""A floor of tables for the pit's page tests and screenshots.

One real simulated shoe (``station simulate --messages``, tests/client/clientkit.py: a
misread, a card not due and a lost reader, each paused and resumed) is played by every table
of the floor under its own id and its own signing key, each cut at its own point, so the
floor shows tables between rounds, mid-round, paused (with the station's own pause reasons)
and offline (its last will). The messages are the station's, re-signed with each table's
key after the table id in them is changed; nothing else is invented.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import paho.mqtt.client as paho
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from station.table.procedures import PAUSE_WORDS
from station.wire import messages
from station.wire.signing import Signer, public_pem
from tests.client.clientkit import TABLE, simulated_stream

PREFIX = "baccarat"
# The journal head a status carries (issue 24); the pit does not read it.
HEAD = messages.journal_head(bytes(32), 0, bytes(32))


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def base_shoe(tmp: Path) -> list[dict[str, Any]]:
    """The simulated shoe's messages, without their signatures."""
    tmp.mkdir(parents=True, exist_ok=True)
    stream = simulated_stream(tmp)
    out = []
    for p in stream.payloads:
        m = orjson.loads(p)
        m.pop("sig", None)
        out.append(m)
    return out


def retable(m: dict[str, Any], table: str) -> dict[str, Any]:
    """``m`` as table ``table`` would have sent it: its id in ``table``, keys and shoe ids."""
    out = dict(m, table=table)
    for name in ("key", "shoe", "round_key"):
        value = out.get(name)
        if isinstance(value, str) and value.startswith((f"{TABLE}:", f"{TABLE}-")):
            out[name] = table + value[len(TABLE):]
    return out


def paused_at(shoe: list[dict[str, Any]], which: int = 0) -> int:
    """The index just past the ``which``-th status that says the table is paused."""
    found = [i for i, m in enumerate(shoe) if m["kind"] == "status" and m.get("paused")]
    return found[which] + 1


def between_rounds(shoe: list[dict[str, Any]], after_round: int) -> int:
    """The index just past the status after round ``after_round``'s result."""
    for i, m in enumerate(shoe):
        if m["kind"] == "round" and m["round"] == after_round:
            return i + 2
    raise AssertionError(f"no round {after_round}")


@dataclass
class Table:
    """One table of the floor: its key and the messages it has sent so far."""

    id: str
    prefix: str = PREFIX
    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    sent: int = 0  # how many of the shoe's messages
    seq: int = 0  # the last seq sent
    event_seq: int | None = None  # the last events message's seq (the next one's prev_seq)
    shift: float = 0.0  # s added to the shoe's times

    def topic(self, kind: str) -> str:
        return f"{self.prefix}/{self.id}/{'status' if kind == 'status' else 'events'}"

    def payloads(self, shoe: list[dict[str, Any]], upto: int, *, now: float | None = None
                 ) -> Iterator[tuple[str, bytes]]:
        """The shoe's messages from where this table is up to ``upto``, signed: (topic,
        payload). With ``now`` (epoch s), the times are moved so that message ``upto - 1``
        was sent then (the simulation's clock starts in 2026-01-01)."""
        signer = Signer(self.key)
        if now is not None:
            self.shift = now - _epoch(shoe[upto - 1]["ts"])
        for m in shoe[self.sent:upto]:
            out = retable(m, self.id)
            for name in ("ts", "closes_at"):
                if self.shift and isinstance(out.get(name), str):
                    out[name] = _iso(_epoch(out[name]) + self.shift)
            self._count(out)
            yield self.topic(m["kind"]), signer.sign(out)
        self.sent = max(self.sent, upto)

    def extra(self, kind: str, ts: str, **fields: Any) -> tuple[str, bytes]:
        """A message of ``kind`` after those sent (numbered on), as the station words it."""
        seq = self.seq + 1
        m: dict[str, Any] = {"v": 1, "table": self.id, "kind": kind, "seq": seq, "ts": ts,
                             "key": f"{self.id}:{kind}:{seq}", **fields}
        if kind == "status":
            # Every status carries the journal's head and the clock's state (issue 24).
            m.setdefault("journal", HEAD)
            m.setdefault("clock", "unknown")
        else:
            m["prev_seq"] = self.event_seq
        self._count(m)
        return self.topic(kind), Signer(self.key).sign(m)

    def dealer_pause(self, shoe: list[dict[str, Any]], ts: str, code: str = "dispute",
                     by: str = "dealer:D042") -> list[tuple[str, bytes]]:
        """The dealer's own pause (its reason code), then the status that says so."""
        last = shoe[self.sent - 1]
        where = {"shoe": retable(last, self.id).get("shoe"), "round": last.get("round")}
        reason = f"held by the dealer: {PAUSE_WORDS[code][0]}"
        return [self.extra("pause", ts, reason=reason, raised_by=by, code=code, **where),
                self.extra("status", ts, online=True, phase="paused", paused=reason, **where)]

    def _count(self, m: dict[str, Any]) -> None:
        if isinstance(m.get("seq"), int):
            self.seq = max(self.seq, m["seq"])
            if m["kind"] != "status":
                self.event_seq = m["seq"]

    def last_will(self, ts: str) -> tuple[str, bytes]:
        """The presence status a broker publishes for a station that died."""
        m = messages.presence(table=self.id, ts=_epoch(ts), online=False, journal=HEAD)
        return self.topic("status"), Signer(self.key).sign(m)


def write_keys(tables: list[Table], folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for t in tables:
        (folder / f"{t.id}.pub.pem").write_bytes(public_pem(t.key.public_key()))
    return folder


def plan(shoe: list[dict[str, Any]], n: int, *, paused: int = 0, offline: int = 0,
         prefix: str = PREFIX) -> list[tuple[Table, int]]:
    """``n`` tables ``t1``..``tn`` and how far each plays: the first ``paused`` stop at a
    pause, the next ``offline`` between rounds (their last will is theirs to send), the rest
    at rounds spread over the shoe, some between rounds, some mid-round."""
    rounds = max(m["round"] for m in shoe if m["kind"] == "round")
    out = []
    for i in range(1, n + 1):
        t = Table(f"t{i}", prefix)
        if i <= paused:
            upto = paused_at(shoe, (i - 1) % 3)
        else:
            upto = between_rounds(shoe, 4 + (i * 7) % (rounds - 6))
            if i % 3 == 0:
                upto += 4  # mid-round: betting open, closed, a card or two
        out.append((t, upto))
    return out


def iso_now(offset_s: float = 0.0) -> str:
    return _iso(time.time() + offset_s)


class Publisher:
    """A station stand-in on the broker: publishes payloads in order, QoS 1, and waits."""

    def __init__(self, port: int) -> None:
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id="pit-pages-feeder",
                                  protocol=MQTTProtocolVersion.MQTTv5)
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()

    def publish(self, items: Iterator[tuple[str, bytes]] | list[tuple[str, bytes]]) -> int:
        infos = [self.client.publish(topic, payload, qos=1, retain=topic.endswith("/status"))
                 for topic, payload in items]  # retained as a station's status is
        deadline = time.monotonic() + 60
        for info in infos:
            info.wait_for_publish(max(0.1, deadline - time.monotonic()))
        return len(infos)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
