"""The Host check (docs/display.md, "Who may reach the page"): with a wildcard bind the page
is served to any IP literal of the station, yet a host name that is not the station's (DNS
rebinding) is still refused, with the station's address by IP to use instead."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from station.web.hosts import WILDCARDS, host_allowed, is_ip_literal, split_host
from tests import webkit


def get(address: str, port: int, host_header: str) -> tuple[int, dict[str, Any]]:
    """GET /api/state from ``address`` with a chosen Host header (the browser's view of it)."""
    conn = http.client.HTTPConnection(address, port, timeout=15)
    try:
        conn.request("GET", "/api/state", headers={"Host": host_header})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def test_a_wildcard_bind_serves_ip_literals_and_refuses_other_names(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path, host="0.0.0.0", allow_plain_http=True)
    port = int(yaml.safe_load(config.read_text())["display"]["port"])
    with webkit.running(config):
        # Another machine on the LAN browses to the station's LAN address: its browser sends
        # that address as the Host. 127.0.0.2 is an address of this machine other than the
        # usual loopback one, reached through the wildcard bind like a LAN address.
        for header in (f"192.168.1.20:{port}", f"127.0.0.2:{port}", f"[fe80::1]:{port}",
                       f"localhost:{port}", f"[::1]:{port}"):
            status, answer = get("127.0.0.2", port, header)
            assert status == 200, (header, answer)
            assert answer["state"]["phase"]
        # A host name that resolves to the station (DNS rebinding) is still refused, and the
        # fix names the station by the IP address the request reached.
        status, answer = get("127.0.0.2", port, f"evil.example:{port}")
        assert status == 403
        assert answer["error"] == f"Host 'evil.example:{port}' is not this station"
        assert f"http://127.0.0.2:{port}/" in answer["fix"]
        assert "0.0.0.0" not in answer["fix"]
        status, _ = get("127.0.0.1", port, "192.168.1.20:1")  # the wrong port
        assert status == 403


def test_a_named_bind_still_refuses_other_addresses(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path)  # 127.0.0.1
    port = int(yaml.safe_load(config.read_text())["display"]["port"])
    with webkit.running(config):
        assert get("127.0.0.1", port, f"127.0.0.1:{port}")[0] == 200
        status, answer = get("127.0.0.1", port, f"192.168.1.20:{port}")
        assert status == 403
        assert answer["fix"] == f"use http://127.0.0.1:{port}/"


@given(st.text(max_size=60), st.sampled_from(["0.0.0.0", "::", "127.0.0.1", "::1",
                                              "station.local"]))
def test_any_host_header_is_a_yes_or_no(header: str, bind: str) -> None:
    allowed = host_allowed(header, bind, 8080)
    parts = split_host(header)
    if allowed:
        assert parts is not None and parts[1] == "8080"
        name = parts[0].lower()
        # Never a host name other than the station's own: no DNS rebinding.
        assert is_ip_literal(name) or name in ("localhost", bind.lower())
        if not is_ip_literal(name) or bind not in WILDCARDS:
            assert name in ("localhost", "127.0.0.1", "::1", bind.lower())


@given(st.from_regex(r"[a-z][a-z0-9.-]{0,30}", fullmatch=True))
def test_a_wildcard_bind_refuses_every_other_host_name(name: str) -> None:
    if name != "localhost":
        assert not host_allowed(f"{name}:8080", "0.0.0.0", 8080)
        assert not host_allowed(f"{name}:8080", "::", 8080)
