"""A late subscriber has the present at once, after a restart too (issue 33): the station's
first retained status after it restarts is the journal's newest, naming the pause, not a bare
``online: true`` presence. A real station on a real Mosquitto, killed and started again."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import orjson

from tests.stationkit import FAST, start, table_config, wait_for, write_key
from tests.upstream.broker import Broker, Subscriber


def first_status(port: int, name: str) -> dict[str, object]:
    late = Subscriber(port, "baccarat/t7/status", client_id=name)
    try:
        wait_for(lambda: bool(late.snapshot()), 30, "the retained status")
        return dict(orjson.loads(late.snapshot()[0].payload))
    finally:
        late.close()


def test_a_late_subscribers_first_status_after_a_restart_names_the_pause(
        tmp_path: Path, broker: Broker) -> None:
    key_path, _ = write_key(tmp_path)
    config = table_config(tmp_path, seed=5, upstream={
        "type": "mqtt", "host": "127.0.0.1", "port": broker.port, "prefix": "baccarat",
        "signing_key_file": str(key_path), "reconnect_max_s": 1},
        supervisor="none", faults=[{"kind": "not_due", "after_round": 1}], pace=FAST)
    station = start(config)
    try:
        wait_for(lambda: first_status(broker.port, f"early-{time.monotonic()}").get("paused")
                 is not None, 60, "the table paused")
        station.send_signal(signal.SIGKILL)
        station.wait(10)
        wait_for(lambda: first_status(broker.port, f"will-{time.monotonic()}").get("online")
                 is False, 30, "the last will")
        station = start(config)
        wait_for(lambda: first_status(broker.port, f"back-{time.monotonic()}").get("online")
                 is True, 60, "the station back")
        status = first_status(broker.port, "late")
    finally:
        if station.poll() is None:
            station.send_signal(signal.SIGKILL)
            station.wait(10)
    assert status["online"] is True and "seq" in status, status
    assert status["paused"], status
    assert status["phase"] == "paused" and status["shoe"] and status["round"], status
