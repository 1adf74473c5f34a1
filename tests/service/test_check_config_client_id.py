"""check-config connects "under a client id of its own, so a running station is not
disturbed" (docs/operations.md): a client holding the station's id stays connected."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from station.kinds.outlets.mqtt import MqttSettings
from station.live.config import load_config
from tests.daemon.test_daemon import config_dict
from tests.service.test_install_check import station, write
from tests.upstream.broker import Broker, wait_until


def test_check_config_leaves_the_running_stations_connection_alone(
        tmp_path: Path, broker: Broker) -> None:
    (tmp_path / "keys").mkdir()
    assert station("keygen", str(tmp_path / "keys"), cwd=tmp_path).returncode == 0
    cfg = config_dict(tmp_path)
    cfg["upstream"] = {"type": "mqtt", "host": "127.0.0.1", "port": broker.port,
                       "signing_key_file": "keys/signing-key.pem"}
    path = write(tmp_path, cfg)
    config = load_config(path)
    station_id = config.upstream.kind_as(MqttSettings).link.client_id_for(config.rules.table)
    # The running station, as the broker sees it: a session under the station's client id.
    connected = threading.Event()
    dropped: list[str] = []

    def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        connected.set()

    def on_disconnect(client: Any, userdata: Any, flags: Any, reason: Any,
                      props: Any) -> None:
        dropped.append(str(reason))

    running = paho.Client(CallbackAPIVersion.VERSION2, client_id=station_id,
                          protocol=MQTTProtocolVersion.MQTTv5)
    running.on_connect = on_connect
    running.on_disconnect = on_disconnect
    running.connect("127.0.0.1", broker.port, keepalive=10)
    running.loop_start()
    try:
        wait_until(connected.is_set, 10, "the station's connection")
        done = station("check-config", "-c", str(path), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"ok   upstream: 127.0.0.1:{broker.port}: the broker accepted" in done.stdout
        time.sleep(0.5)  # a take-over is sent at once; leave it time to arrive
        assert dropped == [] and running.is_connected()
    finally:
        running.disconnect()
        running.loop_stop()
