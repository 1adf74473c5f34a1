"""The paho client (2.x callbacks, MQTT 5) of a service that listens to many tables (``station
pit``, ``station archive``), built and connected one way from its ``broker:`` section
(station.services.broker.config).

- **Persistent session.** ``clean_start`` false with ``broker.session_expiry_s``: what the
  tables publish while the service restarts is queued by the broker and arrives after.
- **Reconnecting.** paho's own, in its network thread (``loop_start``), with a backoff that
  doubles from 1 s up to ``broker.reconnect_max_s``; the subscriptions are made again in each
  service's ``on_connect``. (The station's publisher reconnects by itself instead, with a
  fresh client each time, because its outbox is the only queue: station.upstream.mqtt.)
- **Credentials and TLS** as the station's (station.upstream.mqttsetup): the file the
  config names, else the unit's credential ``mqtt-credentials``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from station.services.broker.config import BrokerSettings
from station.upstream.mqttsetup import apply_tls, credentials_file, read_credentials

RECONNECT_MIN_S = 1


def service_client(broker: BrokerSettings, client_id: str, config: Path, *,
                   manual_ack: bool = False,
                   environ: Mapping[str, str] | None = None) -> paho.Client:
    """A client set up but not connected. Raises ConfigError naming ``config`` and the key
    (a credentials file that cannot be read, a TLS file that is not a PEM)."""
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=MQTTProtocolVersion.MQTTv5, manual_ack=manual_ack)
    creds = credentials_file(broker.credentials_file, environ)
    if creds is not None:
        client.username_pw_set(*read_credentials(creds, f"{config}: broker.credentials_file"))
    apply_tls(client, broker.tls, f"{config}: broker.tls")
    client.reconnect_delay_set(RECONNECT_MIN_S, max(RECONNECT_MIN_S, broker.reconnect_max_s))
    return client


def connect_persistent(client: paho.Client, broker: BrokerSettings, *,
                       receive_max: int | None = None) -> None:
    """Start connecting in paho's thread (returns at once: the broker may be down, paho
    keeps trying). ``receive_max``: at most this many messages sent to us and not yet
    acknowledged (a service that acknowledges only after writing bounds its memory so)."""
    props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    props.SessionExpiryInterval = broker.session_expiry_s
    if receive_max is not None:
        props.ReceiveMaximum = receive_max
    client.connect_async(broker.host, broker.effective_port, keepalive=broker.keepalive_s,
                         clean_start=False, properties=props)
    client.loop_start()
