"""A real Mosquitto broker on a free loopback port, and a recording subscriber.

The broker is the Debian package's binary, started per test with its own config in a
temporary directory (listener on 127.0.0.1 only, persistence in that directory), so tests
never depend on a system-wide broker.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until(check: Callable[[], bool], timeout_s: float, what: str,
               step_s: float = 0.01) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(step_s)


class Broker:
    """One mosquitto process at a time on a fixed port; restartable on the same port."""

    def __init__(self, directory: Path, port: int | None = None,
                 users: dict[str, str] | None = None) -> None:
        """``users``: names and passwords the broker takes, no one else (anonymous refused);
        written with Debian's mosquitto_passwd."""
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.log = self.dir / "mosquitto.log"
        self.conf = self.dir / "mosquitto.conf"
        access = "allow_anonymous true\n"
        if users is not None:
            passwords = self.dir / "passwords"
            passwords.touch(mode=0o600)
            for name, password in users.items():
                subprocess.run([MOSQUITTO_PASSWD, "-b", str(passwords), name, password],
                               check=True, capture_output=True)
            access = f"allow_anonymous false\npassword_file {passwords}\n"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            + access +
            # Sessions and retained messages survive a stop (and a kill after save()).
            "persistence true\n"
            f"persistence_location {self.dir}/\n"
            "autosave_interval 0\n"
            # Queue everything for a subscriber that is away during an outage test.
            "max_queued_messages 0\n"
            # Forward at once, never hold messages back in memory where a kill loses them.
            "max_inflight_messages 0\n"
            # As root mosquitto drops to its own user, which cannot write our directory.
            f"user {pwd.getpwuid(os.getuid()).pw_name}\n"
            "log_dest stderr\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 10.0) -> None:
        assert self.proc is None, "broker already running"
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=log,
                                         stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited ({self.proc.returncode}):\n"
                                   f"{self.log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"mosquitto not accepting on {self.port}") from None
                time.sleep(0.02)

    def save(self) -> None:
        """Make mosquitto write its persistence database now (SIGUSR1)."""
        assert self.proc is not None
        db = self.dir / "mosquitto.db"
        before = db.stat().st_mtime_ns if db.exists() else 0
        self.proc.send_signal(signal.SIGUSR1)
        wait_until(lambda: db.exists() and db.stat().st_mtime_ns != before, 5, "mosquitto.db")

    def pause(self) -> None:
        """SIGSTOP: connections stay open but nothing is answered (a hung broker)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        """A clean stop (SIGTERM): sessions and retained messages are saved."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL: whatever was not saved is gone, as in a crash."""
        self._end(signal.SIGKILL)

    def _end(self, sig: int) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a paused broker cannot act on SIGTERM
            self.proc.send_signal(sig)
            self.proc.wait(10)
        self.proc = None

    def version(self) -> str:
        done = subprocess.run([MOSQUITTO, "-h"], capture_output=True, text=True, check=False)
        first = (done.stdout or done.stderr).splitlines()[0]
        return first.removeprefix("mosquitto version ").strip()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


@dataclass(frozen=True)
class Received:
    topic: str
    payload: bytes
    retain: bool


class Subscriber:
    """A game server stand-in: a persistent MQTT 5 session subscribed to ``topic``."""

    def __init__(self, port: int, topic: str, client_id: str = "test-subscriber",
                 clean: bool = False, login: tuple[str, str] | None = None) -> None:
        self.topic = topic
        self.messages: list[Received] = []
        self._lock = threading.Lock()
        self.subscribed = threading.Event()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=MQTTProtocolVersion.MQTTv5)
        self.client.reconnect_delay_set(1, 1)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        if login is not None:
            self.client.username_pw_set(*login)
        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.SessionExpiryInterval = 0 if clean else 3600
        self.client.connect_async("127.0.0.1", port, keepalive=10, clean_start=clean,
                                  properties=props)
        self.client.loop_start()
        wait_until(self.subscribed.is_set, 10, "the subscriber's SUBACK")

    def _on_connect(self, client: paho.Client, userdata: object, flags: object,
                    reason: object, properties: object) -> None:
        client.subscribe(self.topic, qos=1)

    def _on_subscribe(self, client: paho.Client, userdata: object, mid: int,
                      reasons: object, properties: object) -> None:
        self.subscribed.set()

    def _on_message(self, client: paho.Client, userdata: object,
                    message: paho.MQTTMessage) -> None:
        with self._lock:
            self.messages.append(Received(message.topic, bytes(message.payload),
                                          bool(message.retain)))

    def snapshot(self) -> list[Received]:
        with self._lock:
            return list(self.messages)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
