"""The upstream settings' validation, the backoff and the once-per-outage log line."""

from __future__ import annotations

import logging
from dataclasses import fields
from pathlib import Path

import pytest

from station.kinds.outlets.mqtt import MqttSettings
from station.settings.configmodel import UpstreamConfig
from station.upstream.mqttlink import MqttLink, TlsSettings
from station.upstream.outage import Backoff, Outage


def test_defaults_are_valid_and_file_is_the_default() -> None:
    s = MqttLink()
    assert MqttSettings().problems() == [] and UpstreamConfig().type == "file"
    assert s.effective_port == 1883 and MqttLink(tls=TlsSettings()).effective_port == 8883
    assert s.client_id_for("table-1") == "station-table-1"
    assert s.base_topic("table-1") == "baccarat/table-1"


@pytest.mark.parametrize(("values", "key"), [
    ({"port": 70000}, "port"),
    ({"prefix": "a/+/b"}, "prefix"),
    ({"prefix": "a//b"}, "prefix"),
    ({"client_id": ""}, "client_id"),
    ({"tls": TlsSettings(cert_file=Path("c.pem"))}, "tls"),
    ({"max_inflight": 0}, "max_inflight"),
    ({"max_inflight": 5000}, "max_inflight"),
    ({"keepalive_s": 1}, "keepalive_s"),
    ({"command_keys": {"bad name": Path("k.pem")}}, "command_keys.bad name"),
    ({"command_window_s": 0}, "command_window_s"),
    ({"command_skew_s": -1}, "command_skew_s"),
    ({"host": ""}, "host"),
])
def test_problems_name_the_key(values: dict[str, object], key: str) -> None:
    # The broker's keys are the link's (the services read them too), the rest the outlet's;
    # the outlet's type is the registry's to check (tests/cli/test_kinds_registry.py).
    link = {k: v for k, v in values.items() if k in {f.name for f in fields(MqttLink)}}
    own = {k: v for k, v in values.items() if k not in link}
    problems = MqttSettings(MqttLink(**link), **own).problems()  # type: ignore[arg-type]
    assert [k for k, _ in problems] == [key]


def test_backoff_doubles_to_a_cap_and_resets() -> None:
    b = Backoff(0.5, 3.0)
    assert [b.next() for _ in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    b.reset()
    assert b.next() == 0.5
    with pytest.raises(ValueError):
        Backoff(2.0, 1.0)


def test_outage_logs_once_and_its_end(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    now = [100.0]
    outage = Outage(logging.getLogger("t"), "broker x", clock=lambda: now[0])
    assert outage.recovered(0) is None  # nothing to recover from
    assert outage.failed("refused", 5) is True
    assert outage.failed("refused", 6) is False
    now[0] = 112.5
    assert outage.recovered(7) == 12.5
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert "broker x unavailable: refused; 5 message(s)" in messages[0]
    assert "back after 12.5 s; 7 message(s)" in messages[1]
