"""``reader.type: hid`` in a config: its keys checked at load, ``check-config``'s probe and
``station monitor`` on a HID-POS scanner (a FIFO where its hidraw node would be)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.hid_scanner import HidScanner
from drivers.hidpos import HidPosScanner
from station.errors import ConfigError
from station.kinds.readers import DEVICES_DROPIN, DeviceHooks, hid
from station.kinds.registry import kind
from station.live.config import parse_config
from station.live.service.check import check
from tests.drivers.test_hidpos import report
from tests.sampling import LONG

BASE = {"display": {"type": "web"}}


def config(tmp_path: Path, reader: dict[str, Any]) -> Any:
    return parse_config(tmp_path / "station.yaml", {**BASE, "reader": {"type": "hid",
                                                                       **reader}})


@pytest.mark.parametrize(("reader", "message"), [
    ({}, "reader.device: a hid reader needs either device"),
    ({"device": "/dev/hidraw0", "usb_id": "0c2e:0b61"}, "reader.device: a hid reader needs "
     "either device"),
    ({"usb_id": "0c2e"}, "reader.usb_id: '0c2e' is not a USB id vvvv:pppp"),
    ({"usb_id": "xyz:0b61"}, "reader.usb_id: 'xyz:0b61' is not a USB id"),
    ({"usb_id": "12345:1"}, "reader.usb_id: '12345:1' is not a USB id"),
    ({"device": "/dev/hidraw0", "mode": "cdc"}, "reader.mode: 'cdc' is not one of: keyboard, pos"),
    ({"device": "/dev/x", "layout": "dvorak"}, "reader.layout: 'dvorak' is not one of: de, fr, "
     "uk, us"),
    ({"device": "/dev/x", "terminator": "space"}, "reader.terminator: 'space' is not one of"),
    ({"device": "/dev/x", "prefix": ""}, "reader.prefix: expected a non-empty text"),
    ({"device": "/dev/x", "layuot": "us"}, "reader.layuot: unknown key (did you mean 'layout'?)"),
])
def test_a_bad_hid_reader_is_refused_naming_the_key_and_fix(
        tmp_path: Path, reader: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        config(tmp_path, reader)
    assert f"station.yaml: {message}" in str(err.value)


def test_a_hid_reader_builds_the_reader_of_its_mode(tmp_path: Path) -> None:
    kb = config(tmp_path, {"device": "/dev/input/by-id/usb-X-event-kbd", "layout": "fr",
                           "terminator": "tab", "prefix": "]C0", "cut_code": "CUT"})
    reader = kind("reader", "hid").build(kb, DeviceHooks())  # type: ignore[misc]
    assert isinstance(reader, HidScanner)
    assert reader.decoder.layout.name == "fr" and reader.parser.framing == "tab"
    assert reader.parser.prefix == "]C0"
    assert hid.device_allow(kb) == ("char-input r",)
    pos = config(tmp_path, {"usb_id": "0C2E:0b61", "mode": "pos"})
    reader = kind("reader", "hid").build(pos, DeviceHooks())  # type: ignore[misc]
    assert isinstance(reader, HidPosScanner) and reader.usb == (0x0C2E, 0x0B61)
    assert hid.device_allow(pos) == ("char-hidraw r",)
    assert hid.describe(pos, reader) == "USB 0c2e:0b61 (HID-POS)"


def test_check_config_opens_a_pos_node_and_names_a_missing_keyboard(tmp_path: Path) -> None:
    node = tmp_path / "hidraw7"
    os.mkfifo(node)
    found = {f.what: f for f in check(config(tmp_path, {"device": str(node), "mode": "pos"}))}
    assert found["reader.device"].ok and found["reader.device"].detail.startswith(
        f"{node} opened")
    missing = tmp_path / "usb-Gone-event-kbd"
    found = {f.what: f for f in check(config(tmp_path, {"device": str(missing)}))}
    assert not found["reader.device"].ok
    assert "cannot be opened" in found["reader.device"].detail
    assert "ls -l /dev/input/by-id/" in found["reader.device"].detail
    # A node that is no input device (the FIFO) cannot say what it is: refused, not guessed.
    found = {f.what: f for f in check(config(tmp_path, {"device": str(node)}))}
    assert not found["reader.device"].ok


def test_check_config_says_when_the_installed_unit_may_not_open_the_scanner(
        tmp_path: Path) -> None:
    own = hid.HidSettings(device="/dev/hidraw0", mode="pos")
    assert list(hid._probe_unit(own, tmp_path)) == []  # no unit installed: nothing to say
    unit = tmp_path / "etc/systemd/system/dealer-station.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\n")
    (bad,) = hid._probe_unit(own, tmp_path)
    assert not bad.ok and "run station install-service again" in bad.detail
    (tmp_path / DEVICES_DROPIN).parent.mkdir(parents=True)
    (tmp_path / DEVICES_DROPIN).write_text("[Service]\nDeviceAllow=char-hidraw r\n")
    (good,) = hid._probe_unit(own, tmp_path)
    assert good.ok


def test_monitor_reads_a_pos_scanner_with_its_symbology(tmp_path: Path) -> None:
    node = tmp_path / "hidraw5"
    os.mkfifo(node)
    cfg = tmp_path / "station.yaml"
    cfg.write_text(yaml.safe_dump({"reader": {"type": "hid", "mode": "pos",
                                              "device": str(node), "cut_code": "CUT"}}))
    proc = subprocess.Popen([sys.executable, "-m", "station.cli", "monitor", "-c", str(cfg)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        assert "HID-POS" in proc.stderr.readline()
        assert proc.stderr.readline().strip().endswith(" open")
        w = os.open(node, os.O_WRONLY)
        os.write(w, report(b"10h", b"]C0"))
        first = json.loads(proc.stdout.readline())
        os.write(w, report(b"CUT"))
        second = json.loads(proc.stdout.readline())
        os.write(w, report(b"ZZ"))
        third = json.loads(proc.stdout.readline())
        os.close(w)
        proc.send_signal(signal.SIGINT)
        proc.wait(10)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert (first["e"], first["code"], first["symbology"]) == ("card", "TH", "]C0")
    assert second["e"] == "cut"
    assert (third["e"], third["reason"], third["raw"]) == ("error", "unknown", "ZZ")


class KernelSays:
    """The answers of a scanner's event node to the probe's ioctls (EVIOCGRAB, EVIOCGNAME,
    EVIOCGID, EVIOCGBIT): no input device can be made here. The calls are recorded."""

    def __init__(self, keys: list[int], busy: bool = False) -> None:
        self.keys, self.busy = keys, busy
        self.calls: list[str] = []
        self.name = "Honeywell Scanner"
        self.info = type("Info", (), {"vendor": 0x0C2E, "product": 0x0B61})()

    def __call__(self, path: str) -> KernelSays:
        self.calls.append(f"open {path}")
        return self

    def grab(self) -> None:
        if self.busy:
            raise OSError(16, "Device or resource busy")
        self.calls.append("grab")

    def ungrab(self) -> None:
        self.calls.append("ungrab")

    def capabilities(self) -> dict[int, list[int]]:
        return {1: self.keys}

    def close(self) -> None:
        self.calls.append("close")


def test_check_config_grabs_a_keyboard_node_says_what_it_is_and_lets_it_go() -> None:
    own = hid.HidSettings(device="/dev/input/by-id/usb-H-event-kbd")
    kernel = KernelSays([28, 30, 42])
    found = hid._probe_keyboard(own, kernel)
    assert found.ok and found.detail == ("/dev/input/by-id/usb-H-event-kbd opened and grabbed: "
                                         "'Honeywell Scanner', USB 0c2e:0b61, a keyboard")
    assert kernel.calls == ["open /dev/input/by-id/usb-H-event-kbd", "grab", "ungrab", "close"]
    no_enter = hid._probe_keyboard(own, KernelSays([113, 114]))
    assert not no_enter.ok and "no Enter key: not the scanner's keyboard node" in no_enter.detail
    busy = KernelSays([28], busy=True)
    held = hid._probe_keyboard(own, busy)
    assert not held.ok and "cannot be grabbed" in held.detail and busy.calls[-1] == "close"
    by_id = hid._probe_keyboard(hid.HidSettings(usb_id=(0x0C2E, 0x0B61)), KernelSays([28]),
                                lambda v, p: None)
    assert not by_id.ok and by_id.what == "reader.usb_id"
    assert by_id.detail.startswith("USB 0c2e:0b61: no keyboard event node with these ids")


_value = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20),
                   st.sampled_from(["keyboard", "pos", "us", "fr", "tab", "enter", "0c2e:0b61",
                                    "/dev/hidraw0", ":", "0:0", "ffff:ffff", "\x00"]),
                   st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3),
                                                                       st.integers(), max_size=2))


@settings(max_examples=5000 if LONG else 200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from([k.name for k in hid.KEYS]), _value, max_size=7))
def test_any_hid_section_loads_or_is_refused_naming_a_key(tmp_path: Path,
                                                          reader: dict[str, Any]) -> None:
    try:
        loaded = config(tmp_path, reader)
    except ConfigError as exc:
        assert str(exc).startswith(f"{tmp_path / 'station.yaml'}: reader."), str(exc)
        assert "\n" not in str(exc)
        return
    own = hid.settings(loaded)
    assert (own.device is None) != (own.usb_id is None)
    assert own.mode in hid.MODES and own.layout in hid.LAYOUTS
