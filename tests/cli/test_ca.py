"""``station ca init|issue`` (issue 31): a lab's CA, a server certificate a TLS client
verifies by name and address, a client certificate a real mosquitto takes as its user, and
nothing ever overwritten; refusals exit 2 with one line."""

from __future__ import annotations

import os
import pwd
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import paho.mqtt.client as paho
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID
from paho.mqtt.enums import CallbackAPIVersion

from tests.upstream.broker import MOSQUITTO, free_port


def station(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", *args], capture_output=True,
                          text=True, timeout=60, check=False)


def test_init_and_issue_make_certificates_that_verify(tmp_path: Path) -> None:
    ca = tmp_path / "ca"
    done = station("ca", "init", str(ca))
    assert done.returncode == 0, done.stderr
    assert (ca / "ca-key.pem").stat().st_mode & 0o777 == 0o600
    done = station("ca", "issue", str(ca), "pit", "--name", "pit.studio.test", "--name",
                   "127.0.0.1")
    assert done.returncode == 0, done.stderr
    assert "tls: {cert_file:" in done.stdout
    assert (ca / "pit-key.pem").stat().st_mode & 0o777 == 0o600
    cert = x509.load_pem_x509_certificates((ca / "pit.pem").read_bytes())
    assert len(cert) == 2  # the server's, then the CA's
    alt = cert[0].extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert alt.get_values_for_type(x509.DNSName) == ["pit.studio.test"]
    usage = cert[0].extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.SERVER_AUTH]
    # A TLS client that trusts ca.pem accepts the server by its address.
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(ca / "pit.pem", ca / "pit-key.pem")
    client = ssl.create_default_context(cafile=str(ca / "ca.pem"))
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]

        def serve() -> None:
            conn, _ = listener.accept()
            with server.wrap_socket(conn, server_side=True) as tls:
                tls.recv(1)

        t = threading.Thread(target=serve)
        t.start()
        with (socket.create_connection(("127.0.0.1", port)) as raw,
              client.wrap_socket(raw, server_hostname="127.0.0.1") as tls):
            assert tls.version() in ("TLSv1.2", "TLSv1.3")
            tls.send(b"x")
        t.join(10)


def test_nothing_is_overwritten_and_refusals_are_one_line(tmp_path: Path) -> None:
    ca = tmp_path / "ca"
    assert station("ca", "init", str(ca)).returncode == 0
    before = (ca / "ca-key.pem").read_bytes()
    for args in (("ca", "init", str(ca)),
                 ("ca", "issue", str(ca), "pit"),  # a server needs a name
                 ("ca", "issue", str(ca)),
                 ("ca", "issue", str(ca), "../x", "--name", "a.test"),
                 ("ca", "issue", str(tmp_path / "none"), "pit", "--name", "a.test")):
        done = station(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert (ca / "ca-key.pem").read_bytes() == before
    assert station("ca", "issue", str(ca), "c1", "--client").returncode == 0
    done = station("ca", "issue", str(ca), "c1", "--client")
    assert done.returncode == 2 and "already exists" in done.stderr


def test_a_client_certificate_signs_in_to_a_real_mosquitto(tmp_path: Path) -> None:
    ca = tmp_path / "ca"
    assert station("ca", "init", str(ca)).returncode == 0
    assert station("ca", "issue", str(ca), "broker", "--name", "127.0.0.1").returncode == 0
    assert station("ca", "issue", str(ca), "table-07", "--client").returncode == 0
    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\ncafile {ca / 'ca.pem'}\n"
                    f"certfile {ca / 'broker.pem'}\nkeyfile {ca / 'broker-key.pem'}\n"
                    "require_certificate true\nuse_identity_as_username true\n"
                    "allow_anonymous false\n"
                    f"user {pwd.getpwuid(os.getuid()).pw_name}\nlog_dest stderr\n")
    for key in ("broker-key.pem",):
        os.chmod(ca / key, 0o644)  # mosquitto reads it after dropping to its user
    log = (tmp_path / "mosquitto.log").open("wb")
    proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.05)
        assert _connects(port, ca, client=True) == 0
        assert _connects(port, ca, client=False) != 0
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def _connects(port: int, ca: Path, *, client: bool) -> int | None:
    """The CONNACK's reason code (0: in), or None when the handshake itself failed."""
    c = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"t-{client}")
    c.tls_set(ca_certs=str(ca / "ca.pem"),
              certfile=str(ca / "table-07.pem") if client else None,
              keyfile=str(ca / "table-07-key.pem") if client else None)
    got: list[int] = []
    c.on_connect = lambda _c, _u, _f, rc, _p: got.append(int(rc.value))
    try:
        c.connect("127.0.0.1", port, 5)
    except (ssl.SSLError, OSError):
        return None
    c.loop_start()
    deadline = time.monotonic() + 5
    while not got and time.monotonic() < deadline and c.is_connected() is not None:
        time.sleep(0.05)
    c.loop_stop()
    c.disconnect()
    return got[0] if got else None
