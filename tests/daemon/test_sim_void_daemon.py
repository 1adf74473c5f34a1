"""A pit's signed void mid-round at a simulated table, through the real daemon and a real
Mosquitto (issue 30): the simulated dealer, waiting to deal the round's next card when the
void lands, deals no more of the voided round. It dealt on, and that card paused the table as
not due."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.wire.messages import iso_ts
from station.wire.signing import Signer, public_pem
from tests import webkit
from tests.stationkit import write_key
from tests.upstream.broker import Broker, Subscriber

# The dealer's pace between cards: long beside a command's trip through a local broker, so
# the void lands while the dealer waits to deal (a margin, not a measured time).
CARD_S = 1.5


def sim_mqtt_config(tmp: Path, broker_port: int, signer: str, pit: Ed25519PrivateKey) -> Path:
    config = webkit.sim_config(tmp, seed=3, shoes=1)
    cfg: dict[str, Any] = yaml.safe_load(config.read_text())
    cfg["simulation"]["pace"]["card_s"] = CARD_S
    (tmp / "pit.pub.pem").write_bytes(public_pem(pit.public_key()))
    cfg["upstream"] = {"type": "mqtt", "host": "127.0.0.1", "port": broker_port,
                       "prefix": "baccarat", "signing_key_file": signer,
                       "reconnect_max_s": 1, "command_keys": {"pit": "pit.pub.pem"}}
    config.write_text(yaml.safe_dump(cfg))
    return config


def test_the_simulated_dealer_deals_no_more_of_a_round_the_pit_voided(
        tmp_path: Path, broker: Broker) -> None:
    key, _ = write_key(tmp_path)
    pit = Ed25519PrivateKey.generate()
    config = sim_mqtt_config(tmp_path, broker.port, str(key), pit)
    base = webkit.url_of(config)
    pub = Subscriber(broker.port, "baccarat/t5/nothing", client_id="pit-system")
    try:
        with webkit.running(config):
            webkit.wait_state(base, lambda s: s["phase"] == "banker_1", timeout_s=60,
                                    what="a round's first card dealt")
            command = Signer(pit).sign({"v": 1, "id": "pit-void-1", "table": "t5",
                                        "action": "void", "actor": "ann",
                                        "ts": iso_ts(time.time())})
            pub.client.publish("baccarat/t5/commands", command, qos=1).wait_for_publish(5)
            after = webkit.wait_state(
                base, lambda s: s["paused"] or s["phase"] in ("betting_open", "player_1"),
                timeout_s=30, what="the next round, or a pause")
            assert not after["paused"], after["prompt"]
    finally:
        pub.close()
    records = [orjson.loads(line) for line in
               (tmp_path / "results.jsonl").read_text().splitlines()]
    void = [r for r in records if r["status"] == "void"]
    assert len(void) == 1 and len(void[0]["player"]) == 1 and not void[0]["banker"], void
