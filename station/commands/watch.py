"""``station watch``: a table's verified upstream stream, one line of plain words per message.

Subscribes to ``<prefix>/<table>/events`` and ``<prefix>/<table>/status`` on the broker and
feeds every payload through the client library (station.client), which checks it against
the table's public key, the schemas, the order and the ``prev_seq`` links. A problem is a
line too (``BAD SIGNATURE``, ``GAP``, ...); with ``--strict`` the first one ends the watch
with exit 1. Ctrl-C (or SIGTERM) stops it with exit 0.
"""

from __future__ import annotations

import argparse
import os
import queue
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from station.errors import ConfigError

EXIT_PROBLEM = 1
HELP = "print a table's verified upstream stream in plain words"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "watch", help=HELP,
        description="Subscribe to a table's events and status on the MQTT broker, verify every "
        "message with the table's public key and print it in plain words, one line each. "
        "The broker, prefix and table come from a station config's upstream: and table.id "
        "(-c), or from the options, which override it. Ctrl-C stops.",
    )
    p.add_argument("-c", "--config", type=Path, default=None,
                   help="a station YAML: its upstream host, port, prefix, tls, credentials "
                   "and its table.id")
    p.add_argument("--host", default=None, help="the broker (default: localhost)")
    p.add_argument("--port", type=int, default=None, help="the broker's port (default: 1883)")
    p.add_argument("--prefix", default=None, help="the topic prefix (default: baccarat)")
    p.add_argument("--table", default=None, help="the table id (default: the config's)")
    p.add_argument("--key", type=Path, required=True,
                   help="the table's public key (the .pub.pem `station keygen` wrote)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 at the first bad signature, gap or other problem")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace  # noqa: PLC0415

    from station.client import Floor, schema_validator  # noqa: PLC0415
    from station.client.words import line  # noqa: PLC0415
    from station.upstream.mqttlink import MqttLink  # noqa: PLC0415
    from station.wire.signing import load_public_key  # noqa: PLC0415

    settings = MqttLink()
    table = args.table
    if args.config is not None:
        from station.kinds.outlets.mqtt import MqttSettings  # noqa: PLC0415
        from station.kinds.registry import settings_of  # noqa: PLC0415
        from station.live.config import load_config  # noqa: PLC0415

        config = load_config(args.config)
        # The config's broker keys, whichever outlet it chose (they are read all the same).
        own = settings_of(config, "upstream", "mqtt")
        settings = own.link if isinstance(own, MqttSettings) else settings
        table = table or config.rules.table
    if not table:
        raise ConfigError("no table: name it with --table, or give its station config with -c")
    if args.port is not None and not 1 <= args.port <= 65535:
        raise ConfigError(f"--port {args.port}: a port is 1-65535")
    settings = replace(settings, host=args.host or settings.host,
                       port=args.port if args.port is not None else settings.port,
                       prefix=args.prefix or settings.prefix)
    wrong = [f"{k}: {why}" for k, why in settings.problems() if k in ("host", "prefix", "port")]
    if wrong:
        raise ConfigError("; ".join(wrong))
    key = load_public_key(args.key)
    validate = schema_validator()
    if validate is None:
        print("station watch: the jsonschema package is not installed: schemas not checked "
              "(signatures, order and gaps are)", file=sys.stderr)
    floor = Floor({table: key}, validate=validate)
    base = settings.base_topic(table)
    inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
    stop = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    client = _subscribe(settings, table, [f"{base}/events", f"{base}/status"], inbox)
    try:
        while not stop.is_set():
            try:
                topic, payload = inbox.get(timeout=0.1)
            except queue.Empty:
                continue
            for finding in floor.feed(topic, payload):
                text = line(finding)
                if text is not None:
                    print(text, flush=True)
                if args.strict and finding.problem:
                    print(f"station watch: stopped at the first problem (--strict): {text}",
                          file=sys.stderr)
                    return EXIT_PROBLEM
    finally:
        client.loop_stop()
        client.disconnect()
        for s, h in old.items():
            signal.signal(s, h)
    return 0


def _subscribe(settings: Any, table: str, topics: list[str],
               inbox: queue.Queue[tuple[str, bytes]]) -> Any:
    """A paho client (2.x callbacks, MQTT 5) that puts every message of ``topics`` into
    ``inbox`` and says on stderr when it is subscribed; it reconnects by itself."""
    import paho.mqtt.client as paho  # noqa: PLC0415
    from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion  # noqa: PLC0415

    from station.upstream.mqttsetup import apply_tls, read_credentials  # noqa: PLC0415

    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"watch-{table}-{os.getpid()}",
                         protocol=MQTTProtocolVersion.MQTTv5)
    if settings.credentials_file is not None:
        client.username_pw_set(*read_credentials(settings.credentials_file))
    apply_tls(client, settings.tls, "upstream.tls")
    where = f"{settings.host}:{settings.effective_port}"

    def on_connect(client: paho.Client, userdata: Any, flags: Any, reason: Any,
                   properties: Any) -> None:
        if reason.is_failure:
            print(f"station watch: {where} refused the connection: {reason}", file=sys.stderr,
                  flush=True)
            return
        client.subscribe([(t, 1) for t in topics])

    def on_subscribe(client: paho.Client, userdata: Any, mid: int, reasons: Any,
                     properties: Any) -> None:
        print(f"station watch: watching {', '.join(topics)} on {where}; Ctrl-C stops",
              file=sys.stderr, flush=True)

    failed = threading.Event()

    def on_connect_fail(client: paho.Client, userdata: Any) -> None:
        if not failed.is_set():  # said once, not at every retry
            failed.set()
            print(f"station watch: cannot reach {where}; retrying", file=sys.stderr,
                  flush=True)

    def on_message(client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        inbox.put((message.topic, bytes(message.payload)))

    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_connect_fail = on_connect_fail
    client.on_message = on_message
    client.connect_async(settings.host, settings.effective_port, keepalive=30)
    client.loop_start()
    return client
