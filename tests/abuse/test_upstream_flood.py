"""A flood on the broker's commands topic (issue 18): whoever can publish there (a
misconfigured script on the studio LAN) sends commands the verifier refuses. The first few of
each interval are answered one by one; the rest are summed up in one ``command_refused`` with
reason ``flood`` per interval, so the journal, the outbox and the loop's queue grow with the
intervals, not with the flood's rate. The table goes on dealing meanwhile: a signed command
sent after the flood is applied."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from drivers.sim_serial import PtyScanner
from station.live.daemon import UPSTREAM_REFUSALS_FULL
from station.wire.messages import iso_ts
from station.wire.schema import validate
from station.wire.signing import Signer
from tests import webkit
from tests.abuse.scale import pick
from tests.stationkit import write_key
from tests.upstream.broker import Broker, Subscriber

FLOOD = pick(400, 5000)


def _events(sub: Subscriber) -> list[dict[str, Any]]:
    return [orjson.loads(m.payload) for m in sub.snapshot() if m.topic.endswith("/events")]


def _refused(sub: Subscriber) -> list[dict[str, Any]]:
    return [m for m in _events(sub) if m["kind"] == "command_refused"]


def _wait(check: Any, what: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _flooded(msgs: list[dict[str, Any]]) -> int:
    """How many refusals the flood summaries count."""
    counts = [re.search(r"(\d+) more refused", m["detail"]) for m in msgs
              if m["reason"] == "flood"]
    assert all(counts), msgs
    return sum(int(c.group(1)) for c in counts if c)


def test_a_flood_of_refused_commands_is_summed_up(tmp_path: Path, broker: Broker) -> None:
    key, _ = write_key(tmp_path)
    pit = Ed25519PrivateKey.generate()
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.mqtt_live_config(tmp_path, pty.path, broker.port, str(key),
                                         {"pit": pit})
        base = webkit.url_of(config)
        journal = tmp_path / "journal.sqlite3"
        sub = Subscriber(broker.port, "baccarat/t5/#")
        pub = Subscriber(broker.port, "baccarat/t5/nothing", client_id="a-script")
        try:
            with webkit.running(config) as proc:
                webkit.wait_reading(proc, pty.path)
                _wait(lambda: any(m.topic.endswith("/status") for m in sub.snapshot()),
                      "the station online")
                assert webkit.command(base, "new-shoe")[0] == 200
                with sqlite3.connect(journal) as db:
                    before = db.execute("SELECT count(*) FROM events").fetchone()[0]
                for i in range(FLOOD):  # unsigned, then not even JSON
                    body = (b'{"v":1,"id":"x-%d","table":"t5","action":"void"}' % i
                            if i % 2 else b"\x00garbage %d" % i)
                    pub.client.publish("baccarat/t5/commands", body, qos=0)
                pub.client.publish("baccarat/t5/commands", b"last", qos=1).wait_for_publish(10)
                # Every refusal is accounted for: answered one by one or counted in a summary.
                _wait(lambda: len([m for m in _refused(sub) if m["reason"] != "flood"])
                      + _flooded(_refused(sub)) >= FLOOD + 1, "every refusal accounted for")
                one_by_one = [m for m in _refused(sub) if m["reason"] != "flood"]
                summaries = [m for m in _refused(sub) if m["reason"] == "flood"]
                with sqlite3.connect(journal) as db:
                    after = db.execute("SELECT count(*) FROM events").fetchone()[0]
                # The journal grew with the intervals the flood lasted, never with its rate.
                intervals = len(summaries)
                assert len(one_by_one) <= UPSTREAM_REFUSALS_FULL * (intervals + 1)
                assert after - before <= (UPSTREAM_REFUSALS_FULL + 1) * (intervals + 1) + 5
                assert len(one_by_one) + _flooded(summaries) == FLOOD + 1
                # The figures of docs/testing.md (shown with -s).
                print(f"\nupstream flood: {FLOOD + 1} refused, {len(one_by_one)} answered one "
                      f"by one, {len(summaries)} summaries, {after - before} journal records")
                for m in summaries:
                    validate(orjson.dumps(m))
                    assert m["command_id"] is None and m["action"] is None
                # The table still takes a signed command at once after the flood.
                good = Signer(pit).sign({"v": 1, "id": "pit-1", "table": "t5",
                                         "action": "resume", "actor": "ann",
                                         "ts": iso_ts(time.time())})
                pub.client.publish("baccarat/t5/commands", good, qos=1).wait_for_publish(10)
                _wait(lambda: any(m["kind"] == "command_refused" and m["command_id"] == "pit-1"
                                  for m in _events(sub)), "the signed command answered")
                pty.send(["AS", "2S"])  # the burn: dealing goes on
                webkit.wait_state(base, lambda s: s["phase"] == "between_rounds",
                                  what="the burn done")
        finally:
            sub.close()
            pub.close()
