"""A studio's locked broker for tests: a CA of the test's own (made with ``cryptography``), the
certificates of each party, and a real Mosquitto started with the profile ``station
broker-config`` writes (plus, for the test only, the user to run as and its log).

``Studio.party(identity)`` connects a paho MQTT 5 client as that party (its certificate, or
none); ``Listener`` records what one subscription gets and what the broker answered to it.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import pwd
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key
from cryptography.x509.oid import NameOID
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from tests.upstream.broker import MOSQUITTO, free_port, wait_until

STATION = str(Path(sys.executable).parent / "station")


class CA:
    """A certificate authority that lives in ``folder``: ``ca.pem``, and each certificate it
    issues as ``<name>.pem`` with its key ``<name>-key.pem`` (mode 600)."""

    def __init__(self, folder: Path, name: str = "test studio CA") -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.key = generate_private_key(SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.UTC)
        self.cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                     .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(days=1))
                     .not_valid_after(now + datetime.timedelta(days=30))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                     .add_extension(x509.KeyUsage(False, False, False, False, False, True, True,
                                                  False, False), critical=True)
                     .sign(self.key, hashes.SHA256()))
        self.file = folder / "ca.pem"
        self.file.write_bytes(self.cert.public_bytes(serialization.Encoding.PEM))

    def issue(self, common_name: str, *, server: bool = False) -> tuple[Path, Path]:
        """``(certificate, key)`` files for ``common_name``; a server's names 127.0.0.1."""
        key = generate_private_key(SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                                               common_name)]))
                   .issuer_name(self.cert.subject).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=30))
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None),
                                  critical=True))
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                 x509.DNSName("localhost")]), critical=False)
        cert = builder.sign(self.key, hashes.SHA256())
        cert_file = self.folder / f"{common_name}.pem"
        key_file = self.folder / f"{common_name}-key.pem"
        cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        key_file.chmod(0o600)
        return cert_file, key_file


@dataclass
class Studio:
    """A studio's broker, locked by its generated profile, on a free loopback port."""

    folder: Path
    ca: CA
    port: int
    conf: Path
    proc: subprocess.Popen[bytes] | None = None
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.folder / "mosquitto.log"

    def start(self) -> None:
        # The generated profile, and what only a test needs: to run as this user (as root
        # Mosquitto would drop to its own, which cannot read the test's folder) and a log.
        run = self.folder / "run.conf"
        run.write_text(self.conf.read_text() + f"\nuser {pwd.getpwuid(os.getuid()).pw_name}\n"
                       "log_dest stderr\nlog_type all\n")
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen([MOSQUITTO, "-c", str(run)], stdout=log,
                                         stderr=subprocess.STDOUT)
        proc = self.proc
        wait_until(lambda: proc.poll() is not None or
                   f"Opening ipv4 listen socket on port {self.port}" in self.log.read_text(),
                   10, "mosquitto")
        assert proc.poll() is None, self.log.read_text()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None

    def files(self, identity: str) -> dict[str, str]:
        """A party's ``tls:`` keys, issuing its certificate the first time."""
        cert = self.ca.folder / f"{identity}.pem"
        if not cert.exists():
            self.ca.issue(identity)
        return {"ca_file": str(self.ca.file), "cert_file": str(cert),
                "key_file": str(self.ca.folder / f"{identity}-key.pem")}

    def party(self, identity: str | None, client_id: str | None = None, *,
              ca: CA | None = None) -> Listener:
        """A connected client as ``identity`` (None: no certificate at all); ``ca``: a
        certificate from another CA than the studio's."""
        return Listener(self, identity, client_id or f"{identity or 'anonymous'}-test", ca)


class Listener:
    """One MQTT 5 client: what it was answered (CONNACK, SUBACK, PUBACK) and what it got."""

    def __init__(self, studio: Studio, identity: str | None, client_id: str,
                 ca: CA | None) -> None:
        self.connack: Any = None
        self.got: list[tuple[str, bytes]] = []
        self.granted: list[Any] = []
        self.pubacks: dict[int, Any] = {}
        self._lock = threading.Lock()
        self.answered = threading.Event()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=MQTTProtocolVersion.MQTTv5)
        if identity is None:
            self.client.tls_set(ca_certs=str(studio.ca.file))
        else:
            if ca is not None:
                ca.issue(identity)
                cert, key = ca.folder / f"{identity}.pem", ca.folder / f"{identity}-key.pem"
            else:
                files = studio.files(identity)
                cert, key = Path(files["cert_file"]), Path(files["key_file"])
            self.client.tls_set(ca_certs=str(studio.ca.file), certfile=str(cert),
                                keyfile=str(key))
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.on_publish = self._on_publish
        self.client.reconnect_delay_set(30, 30)  # a refused client stays refused in a test
        try:
            self.client.connect_async("127.0.0.1", studio.port, keepalive=10)
            self.client.loop_start()
        except OSError as exc:
            self.connack = exc
            self.answered.set()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    props: Any) -> None:
        self.connack = reason
        self.answered.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       props: Any) -> None:
        if self.connack is None:
            self.connack = reason
        self.answered.set()

    def _on_message(self, client: Any, userdata: Any, message: paho.MQTTMessage) -> None:
        with self._lock:
            self.got.append((message.topic, bytes(message.payload)))

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, reasons: Any,
                      props: Any) -> None:
        self.granted.extend(reasons)

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any,
                    props: Any) -> None:
        self.pubacks[mid] = reason

    @property
    def connected(self) -> bool:
        return self.connack is not None and not getattr(self.connack, "is_failure", True)

    def wait(self, timeout_s: float = 10.0) -> None:
        """Until the broker answered the connection (or the TLS handshake failed)."""
        self.answered.wait(timeout_s)

    def subscribe(self, *topics: str) -> list[Any]:
        """Subscribe and wait for the SUBACK; its reason codes."""
        before = len(self.granted)
        self.client.subscribe([(t, 1) for t in topics])
        wait_until(lambda: len(self.granted) >= before + len(topics), 10, "SUBACK")
        return self.granted[before:]

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> Any:
        """Publish at QoS 1 and wait for the PUBACK; its reason code."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        wait_until(lambda: info.mid in self.pubacks, 10, f"PUBACK of {topic}")
        return self.pubacks[info.mid]

    def messages(self) -> list[tuple[str, bytes]]:
        with self._lock:
            return list(self.got)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def write_studio(folder: Path, ca: CA, *, port: int | None = None, **parties: Any
                 ) -> tuple[Path, int]:
    """STUDIO.yaml with the broker's own certificate from ``ca``; ``parties`` are its lists
    (``tables``, ``pits``, ...) and any other top-level key."""
    cert, key = ca.issue("broker", server=True)
    port = port or free_port()
    data = {"broker": {"listen": "127.0.0.1", "port": port, "ca_file": str(ca.file),
                       "cert_file": str(cert), "key_file": str(key),
                       "persistence_dir": str(folder / "data")},
            **parties}
    path = folder / "studio.yaml"
    path.write_text(yaml.safe_dump(data))
    return path, port


def broker_config(studio_yaml: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([STATION, "broker-config", "-c", str(studio_yaml), "--out",
                           str(out)], capture_output=True, text=True, timeout=60, check=False)


def locked_studio(folder: Path, **parties: Any) -> Studio:
    """A studio's broker from ``station broker-config``, started."""
    folder.mkdir(parents=True, exist_ok=True)
    ca = CA(folder / "ca")
    path, port = write_studio(folder, ca, **parties)
    (folder / "data").mkdir()
    done = broker_config(path, folder / "mosquitto")
    assert done.returncode == 0, done.stdout + done.stderr
    studio = Studio(folder, ca, port, folder / "mosquitto" / "mosquitto.conf")
    studio.start()
    return studio
