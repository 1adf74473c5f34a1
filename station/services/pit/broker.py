"""The pit's one MQTT connection (paho 2.x, MQTT 5): every table's events and status in,
the pit bosses' signed commands out.

The client, its persistent session and its reconnecting are every service's
(station.services.broker.client): what the tables publish while the pit restarts is queued by the
broker and arrives after; the client library drops what arrives twice. Messages go into a
bounded inbox that the service's event loop drains in batches; paho's network thread never
touches the model.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

import paho.mqtt.client as paho
from paho.mqtt.enums import MQTTErrorCode

from station.services.broker.client import connect_persistent, service_client
from station.services.pit.settings import PitConfig

log = logging.getLogger(__name__)

QOS: Final = 1
INBOX_MAX: Final = 200_000  # messages not yet taken by the loop; past it the oldest go
TAKE_MAX: Final = 2000  # messages handed to the loop per batch


class PitBroker:
    def __init__(self, config: PitConfig, wake: Callable[[], None],
                 changed: Callable[[], None] | None = None) -> None:
        self.config = config
        self._wake = wake
        self._changed = changed or (lambda: None)  # the link went up or down
        # Since when (epoch s) the pit has no broker: from the start until it first connects,
        # and from each loss until it is back; None while connected.
        self.lost_since: float | None = time.time()
        self._lock = threading.Lock()
        self._inbox: deque[tuple[str, bytes, bool, float]] = deque()
        self.dropped = 0
        self.connected = False
        self.subscribed = threading.Event()
        self._said_down = False
        self.client = service_client(config.broker, config.client_id, config.path)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message

    def start(self) -> None:
        connect_persistent(self.client, self.config.broker)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def resubscribe(self) -> None:
        """Subscribe again, so the broker sends every retained status once more (a table
        whose key was just added shows at once, not at its next message)."""
        if self.connected:
            self.client.subscribe([(t, QOS) for t in self.config.events_topics()])

    def publish(self, topic: str, payload: bytes) -> bool:
        """QoS 1; False when the pit is not connected (nothing is sent)."""
        if not self.connected:
            return False
        info = self.client.publish(topic, payload, qos=QOS)
        return info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS

    def take(self) -> list[tuple[str, bytes, bool, float]]:
        with self._lock:
            n = min(len(self._inbox), TAKE_MAX)
            return [self._inbox.popleft() for _ in range(n)]

    def backlog(self) -> int:
        with self._lock:
            return len(self._inbox)

    # --- paho's network thread --------------------------------------------------------------
    def _on_connect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        where = self.config.broker.where
        if reason.is_failure:
            log.warning("pit: %s refused the connection: %s", where, reason)
            return
        self.connected = True
        self.lost_since = None
        self._said_down = False
        log.info("pit: connected to %s", where)
        client.subscribe([(t, QOS) for t in self.config.events_topics()])
        self._changed()

    def _on_disconnect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self.connected = False
        if self.lost_since is None:
            self.lost_since = time.time()
        if not self._said_down:
            self._said_down = True
            log.warning("pit: lost the broker (%s); reconnecting", reason)
        self._changed()

    def _on_subscribe(self, client: paho.Client, userdata: Any, mid: int, reasons: Any,
                      properties: Any) -> None:
        self.subscribed.set()

    def _on_message(self, client: paho.Client, userdata: Any,
                    message: paho.MQTTMessage) -> None:
        item = (message.topic, bytes(message.payload), bool(message.retain), time.time())
        with self._lock:
            self._inbox.append(item)
            if len(self._inbox) > INBOX_MAX:
                self._inbox.popleft()
                self.dropped += 1
        self._wake()
