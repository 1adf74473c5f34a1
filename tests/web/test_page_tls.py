"""The dealer page over TLS (issue 31) and the access keys both page servers share
(station.settings.pagetls): parsed, refused with the key named, fuzzed."""

from __future__ import annotations

import http.client
import random
import ssl
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from station.errors import ConfigError
from station.settings.configsection import Section
from station.settings.pagetls import is_loopback, parse_access
from station.web.hosts import host_allowed
from station.web.tls import server_context
from tests import webkit
from tests.tlskit import DNS_NAME, make_ca

KEYS = ("host", "tls", "allow_plain_http", "server_names")


def parse(data: Any, host: str = "127.0.0.1", folder: Path = Path("/nonexistent")) -> Any:
    return parse_access(Section(folder / "x.yaml", "pit", data, KEYS), host)


def test_loopback_is_only_this_machine() -> None:
    for host in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "", "192.168.1.20", "pit.studio.test", "10.0.0.1"):
        assert not is_loopback(host), host


def test_the_keys_parse_and_refuse_with_the_key_named(tmp_path: Path) -> None:
    got = parse({"tls": {"cert_file": "c.pem", "key_file": "k.pem"},
                 "server_names": ["Pit.Studio.Test"]}, "0.0.0.0", tmp_path)
    assert got.tls.cert_file == tmp_path / "c.pem" and got.scheme == "https"
    assert got.server_names == ("pit.studio.test",)
    assert parse({}).tls is None and parse({}).scheme == "http"
    with pytest.raises(ConfigError, match=r"pit\.tls: '0\.0\.0\.0' reaches the network"):
        parse({}, "0.0.0.0")
    assert parse({"allow_plain_http": True}, "0.0.0.0").tls is None
    for bad, match in (({"tls": "yes"}, r"pit\.tls: expected"),
                       ({"tls": {"cert_file": "c.pem"}}, r"pit\.tls\.key_file: missing"),
                       ({"tls": {"cert_file": "c", "key_file": "k", "ca": 1}},
                        r"pit\.tls\.ca: unknown key"),
                       ({"server_names": "pit"}, r"pit\.server_names: expected a list"),
                       ({"server_names": ["a b"]}, r"pit\.server_names: 'a b' is not a DNS"),
                       ({"allow_plain_http": "yes"}, r"pit\.allow_plain_http: expected")):
        with pytest.raises(ConfigError, match=match):
            parse(bad)


def test_a_key_from_systemd_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path / "creds"))
    got = parse({"tls": {"cert_file": "pit.pem",
                         "key_file": "${CREDENTIALS_DIRECTORY}/pit-tls-key"}}, "0.0.0.0",
                tmp_path)
    assert got.tls.key_file == tmp_path / "creds" / "pit-tls-key"


def test_server_names_are_hosts_too() -> None:
    assert host_allowed(f"{DNS_NAME}:8090", "0.0.0.0", 8090, (DNS_NAME,))
    assert not host_allowed(f"{DNS_NAME}:8090", "0.0.0.0", 8090)
    assert not host_allowed("other.test:8090", "0.0.0.0", 8090, (DNS_NAME,))


def test_the_server_context_is_tls_1_2_or_later(tmp_path: Path) -> None:
    ca = make_ca(tmp_path)
    from station.settings.pagetls import PageTls  # noqa: PLC0415

    ctx = server_context(PageTls(ca.cert, ca.key), "display.tls")
    assert ctx.minimum_version == ssl.TLSVersion.TLSv1_2


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from((*KEYS[1:], "other")),
                       st.one_of(st.none(), st.booleans(), st.text(max_size=20),
                                 st.lists(st.text(max_size=10), max_size=3),
                                 st.dictionaries(st.sampled_from(("cert_file", "key_file",
                                                                  "x")),
                                                 st.text(max_size=10), max_size=3))),
       st.sampled_from(("127.0.0.1", "0.0.0.0", "::", "pit.local")))
def test_any_access_keys_are_read_or_refused_with_a_line(data: dict[str, Any], host: str
                                                         ) -> None:
    try:
        parse(data, host)
    except ConfigError as exc:
        assert str(exc).count("\n") == 0 and "pit." in str(exc)


def test_seeded_mutations_of_a_good_section_are_read_or_refused() -> None:
    rng = random.Random(31)
    good = yaml.safe_dump({"tls": {"cert_file": "c.pem", "key_file": "k.pem"},
                           "allow_plain_http": False, "server_names": ["pit.test"]})
    for _ in range(300):
        text = list(good)
        for _ in range(rng.randint(1, 4)):
            text[rng.randrange(len(text))] = rng.choice("{}[]:,-\n x0\"'")
        try:
            data = yaml.safe_load("".join(text))
        except yaml.YAMLError:
            continue
        try:
            parse(data, "0.0.0.0")
        except ConfigError as exc:
            assert "\n" not in str(exc)


def https_state(port: int, ca: Path) -> tuple[int, dict[str, str]]:
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=30,
                                       context=ssl.create_default_context(cafile=str(ca)))
    try:
        conn.request("GET", "/api/state")
        resp = conn.getresponse()
        resp.read()
        return resp.status, dict(resp.getheaders())
    finally:
        conn.close()


def test_the_dealer_page_over_tls_on_a_lan_address(tmp_path: Path) -> None:
    ca = make_ca(tmp_path / "ca")
    config = webkit.sim_config(tmp_path, host="0.0.0.0", shoes=None,
                               tls={"cert_file": str(ca.cert), "key_file": str(ca.key)})
    port = yaml.safe_load(config.read_text())["display"]["port"]
    proc = webkit.launch(config)
    try:
        end = time.monotonic() + 60
        while True:
            try:
                status, headers = https_state(port, ca.ca)
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / "station.log").read_text()[-2000:]
                assert time.monotonic() < end, "the page never answered over TLS"
                time.sleep(0.1)
        assert status == 200 and headers["Strict-Transport-Security"] == "max-age=31536000"
        # station ctl follows display.tls, trusting the CA it is given, and only that.
        ctl = [sys.executable, "-m", "station.cli", "ctl", "status", "-c", str(config)]
        done = subprocess.run([*ctl, "--ca-file", str(ca.ca)], capture_output=True, text=True,
                              timeout=60, check=False)
        assert done.returncode == 0 and "t5 " in done.stdout, done.stderr
        done = subprocess.run(ctl, capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 2 and "CERTIFICATE_VERIFY_FAILED" in done.stderr, done.stderr
        with webkit.browser() as b:
            ctx = b.new_context(ignore_https_errors=True)
            page = ctx.new_page()
            page.goto(f"https://127.0.0.1:{port}/")
            webkit.wait_text(page, "body", "", 20)
            assert page.evaluate("location.protocol") == "https:"
            ctx.close()
    finally:
        log = webkit.stop(proc, config)
    assert "display: https://0.0.0.0:" in log, log[-2000:]


def test_the_dealer_page_in_clear_beyond_loopback_needs_saying_so(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path, host="0.0.0.0")
    done = subprocess.run([sys.executable, "-m", "station.cli", "check-config", "-c",
                           str(config)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2
    assert "display.tls: '0.0.0.0' reaches the network" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
