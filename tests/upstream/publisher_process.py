"""A station stand-in for the last-will test: connects a publisher, prints "connected" and
waits to be killed (a real process, so the kill is a real unclean disconnect)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from station.upstream.mqtt import MqttPublisher
from station.upstream.mqttlink import MqttLink
from station.wire.signing import load_signer
from tests.upstream.helpers import TABLE
from tests.upstream.outboxes import MemoryOutbox


def main() -> None:
    port, key_file = int(sys.argv[1]), Path(sys.argv[2])
    settings = MqttLink(host="127.0.0.1", port=port)
    pub = MqttPublisher(MemoryOutbox(), settings, table=TABLE, signer=load_signer(key_file))
    pub.start()
    while not pub.connected:
        time.sleep(0.01)
    sys.stdout.write("connected\n")
    sys.stdout.flush()
    time.sleep(600)


if __name__ == "__main__":
    main()
