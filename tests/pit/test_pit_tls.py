"""The pit over TLS (issue 31): HTTPS with a test CA, HSTS, a DNS name as Host, plain HTTP
refused beyond loopback unless allowed on purpose, bad key files refused with one line."""

from __future__ import annotations

import http.client
import socket
import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pit.pitkit import Pit, PitFolder
from tests.tlskit import DNS_NAME, make_ca
from tests.webkit import browser


def station(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", *args], capture_output=True,
                          text=True, timeout=60, check=False)


def https_get(port: int, ca: Path, host: str, path: str = "/api/tables"
              ) -> tuple[int, dict[str, str], str]:
    """Status, headers and body of a GET over HTTPS, verified against ``ca``."""
    ctx = ssl.create_default_context(cafile=str(ca))
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=30)
    try:
        conn.request("GET", path, headers={"Host": host})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read().decode()
    finally:
        conn.close()


def test_the_pit_serves_https_with_hsts_and_answers_as_its_dns_name(tmp_path: Path) -> None:
    ca = make_ca(tmp_path / "ca")
    folder = PitFolder(tmp_path / "pit")
    keys = tmp_path / "keys"
    keys.mkdir()
    config = folder.config(1, keys, extra_pit=f", tls: {ca.tls_yaml()}, "
                           f"server_names: [{DNS_NAME}]")
    pit = Pit(config, folder.port, ca=ca.ca)
    try:
        status, headers, _ = https_get(folder.port, ca.ca, f"{DNS_NAME}:{folder.port}")
        assert status == 200
        assert headers["Strict-Transport-Security"] == "max-age=31536000"
        status, _, body = https_get(folder.port, ca.ca, f"evil.test:{folder.port}")
        assert status == 403
        assert f"https://{DNS_NAME}:{folder.port}/" in body
        # TLS 1.2 is served (1.3 by default); the floor of 1.2 is server_context's
        # (tests/web/test_page_tls.py).
        twelve = ssl.create_default_context(cafile=str(ca.ca))
        twelve.maximum_version = ssl.TLSVersion.TLSv1_2
        with (socket.create_connection(("127.0.0.1", folder.port), 10) as raw,
              twelve.wrap_socket(raw, server_hostname="127.0.0.1") as tls):
            assert tls.version() == "TLSv1.2"
        # Plain HTTP to the TLS port gets no page.
        with socket.create_connection(("127.0.0.1", folder.port), 10) as raw:
            raw.sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            raw.settimeout(15)
            assert b"tables" not in raw.recv(4096)
        # The pit still answers after both.
        assert pit.get("/api/tables")["pit"] == "pit"
        assert any("serving https://" in line for line in pit.err), pit.err
    finally:
        assert pit.stop() == 0
        pit.close()


def test_a_browser_reads_the_floor_over_tls(tmp_path: Path) -> None:
    ca = make_ca(tmp_path / "ca")
    folder = PitFolder(tmp_path / "pit")
    keys = tmp_path / "keys"
    keys.mkdir()
    config = folder.config(1, keys, extra_pit=f", tls: {ca.tls_yaml()}")
    pit = Pit(config, folder.port, ca=ca.ca)
    try:
        with browser() as b:
            # The test CA is not in chromium's store: the certificate's errors are ignored,
            # what the page does over TLS is what is tested (the CA is checked above).
            ctx = b.new_context(ignore_https_errors=True)
            page = ctx.new_page()
            resp = page.goto(f"https://127.0.0.1:{folder.port}/")
            assert resp is not None and resp.status == 200
            assert page.evaluate("location.protocol") == "https:"
            assert resp.headers.get("strict-transport-security") == "max-age=31536000"
            page.wait_for_function("document.querySelector('body').textContent.length > 0")
            ctx.close()
    finally:
        assert pit.stop() == 0
        pit.close()


def test_plain_http_beyond_loopback_is_refused_unless_allowed(tmp_path: Path) -> None:
    folder = PitFolder(tmp_path / "pit")
    keys = tmp_path / "keys"
    keys.mkdir()
    config = folder.config(1, keys)
    config.write_text(config.read_text().replace("host: 127.0.0.1, port: "
                                                 f"{folder.port}", f"host: 0.0.0.0, port: "
                                                 f"{folder.port}"))
    for args in (("pit", "--check", "-c", str(config)), ("pit", "-c", str(config))):
        done = station(*args)
        assert done.returncode == 2, done.stderr
        assert "pit.tls: '0.0.0.0' reaches the network" in done.stderr
        assert "allow_plain_http: true" in done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    config.write_text(config.read_text().replace("host: 0.0.0.0,",
                                                 "host: 0.0.0.0, allow_plain_http: true,"))
    pit = Pit(config, folder.port)
    try:
        assert pit.get("/api/tables")["pit"] == "pit"
    finally:
        assert pit.stop() == 0
        pit.close()
    assert any("serving plain HTTP on 0.0.0.0" in line for line in pit.err), pit.err


@pytest.mark.parametrize("damage", ["missing", "garbage", "other key"])
def test_bad_tls_files_exit_2_naming_the_key(tmp_path: Path, damage: str) -> None:
    ca = make_ca(tmp_path / "ca")
    if damage == "missing":
        ca.key.unlink()
    elif damage == "garbage":
        ca.cert.write_text("not a certificate\n")
    else:
        other = make_ca(tmp_path / "ca2")
        ca.key.unlink()
        ca.key.write_bytes(other.key.read_bytes())
    folder = PitFolder(tmp_path / "pit")
    keys = tmp_path / "keys"
    keys.mkdir()
    config = folder.config(1, keys, extra_pit=f", tls: {ca.tls_yaml()}")
    for args in (("pit", "--check", "-c", str(config)), ("pit", "-c", str(config))):
        done = station(*args)
        assert done.returncode == 2, done.stderr
        assert "pit.tls" in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr
