from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from station.errors import ConfigError
from station.kinds.cut_cards.modem_pin import ModemPinSettings
from station.kinds.displays.web import WebSettings
from station.kinds.outlets.file import FileSettings
from station.kinds.outlets.mqtt import MqttSettings
from station.kinds.readers.camera import CameraSettings
from station.kinds.readers.serial import SerialSettings
from station.kinds.registry import settings_of
from station.live.config import load_config, parse_config
from tests.conftest import REPO


def test_the_shipped_config_is_the_simulated_table() -> None:
    cfg = load_config(REPO / "config" / "station.yaml")
    assert cfg.reader.type == "simulated" and cfg.rules.decks == 8
    assert cfg.simulation.supervisor == "resume" and cfg.simulation.seed is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tabel": {}}, "s.yaml: tabel: unknown key (did you mean 'table'?)"),
        ({"table": {"decks": "eight"}}, "s.yaml: table.decks: expected a whole number >= 1, "
                                        "got 'eight'"),
        ({"table": {"decks": True}}, "table.decks: expected a whole number"),
        ({"reader": {"type": "carrier-pigeon"}}, "reader.type: 'carrier-pigeon' is not one of"),
        ({"reader": {"dedupe_ms": -1}}, "reader.dedupe_ms: expected a whole number >= 0"),
        ({"table": {"cut_card_between_rounds": "ignore"}},
         "table.cut_card_between_rounds: 'ignore' is not one of: next_round_last, close_shoe"),
        ({"simulation": {"pace": {"card_s": "fast"}}},
         "simulation.pace.card_s: expected a number of seconds >= 0"),
        ({"simulation": {"faults": [{"kind": "gremlin", "card": 3}]}},
         "simulation.faults[0].kind: 'gremlin' is not one of"),
        ({"simulation": {"faults": [{"kind": "double"}]}},
         "simulation.faults[0].card: a double fault needs card"),
        ({"simulation": {"faults": [{"kind": "not_due", "card": 3}]}},
         "simulation.faults[0].after_round: a not_due fault needs after_round"),
        ({"simulation": {"faults": "many"}}, "simulation.faults: expected a list of faults"),
        (["a", "list"], "s.yaml: (top level): must be a mapping"),
        ({"results": {"path": ""}}, "results.path: expected a non-empty text"),
    ],
)
def test_bad_config_names_file_key_and_fix(data: Any, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(Path("s.yaml"), data)
    assert message in str(err.value)


def test_unreadable_and_invalid_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("table:\n  id: [unclosed\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: line \d+: not valid YAML"):
        load_config(bad)


def test_empty_file_means_all_defaults(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    cfg = load_config(empty)
    assert cfg.rules.dedupe_ms == 150 and cfg.results_path == "var/results.jsonl"


def test_paytable_is_relative_to_the_config_and_validated(tmp_path: Path) -> None:
    (tmp_path / "tables").mkdir()
    src = (REPO / "config" / "paytables" / "seed000.yaml").read_text()
    (tmp_path / "tables" / "t.yaml").write_text(src)
    cfg = parse_config(tmp_path / "s.yaml", {"table": {"paytable": "tables/t.yaml",
                                                       "paytable_variants": ["no_commission"]}})
    assert cfg.paytable is not None and cfg.paytable.variants == ("no_commission",)
    with pytest.raises(ConfigError, match=r"table.paytable: .*missing.yaml is not a file"):
        parse_config(tmp_path / "s.yaml", {"table": {"paytable": "missing.yaml"}})
    with pytest.raises(ConfigError, match=r"table\.paytable_variants: expected a list"):
        parse_config(tmp_path / "s.yaml", {"table": {"paytable": "tables/t.yaml",
                                                     "paytable_variants": "no_commission"}})
    with pytest.raises(ConfigError, match="no_such"):
        parse_config(tmp_path / "s.yaml", {"table": {"paytable": "tables/t.yaml",
                                                     "paytable_variants": ["no_such"]}})
    assert parse_config(tmp_path / "s.yaml", {}).paytable is None


def test_shipped_config_names_the_seed000_paytable() -> None:
    cfg = load_config(REPO / "config" / "station.yaml")
    assert cfg.paytable is not None and cfg.paytable.name == "seed000"


def test_a_simulated_pace_inside_the_double_read_window_is_refused(tmp_path: Path) -> None:
    data = {"reader": {"dedupe_ms": 150}, "simulation": {"pace": {"card_s": 0.1}}}
    with pytest.raises(ConfigError, match=r"simulation\.pace\.card_s: 0\.1 s between cards is "
                                          r"inside reader\.dedupe_ms \(150 ms\)"):
        parse_config(tmp_path / "s.yaml", data)
    data["reader"] = {"dedupe_ms": 50}
    assert parse_config(tmp_path / "s.yaml", data).simulation.pace.card_s == 0.1


def test_a_zero_pace_is_accepted_when_the_double_read_window_is_off(tmp_path: Path) -> None:
    # Issue 18, defect 7a: 0 ms of window and 0 s between cards were compared as 0 <= 0.
    data = {"reader": {"dedupe_ms": 0}, "simulation": {"pace": {"card_s": 0}}}
    cfg = parse_config(tmp_path / "s.yaml", data)
    assert cfg.rules.dedupe_ms == 0 and cfg.simulation.pace.card_s == 0
    data["reader"] = {"dedupe_ms": 1}
    with pytest.raises(ConfigError, match=r"simulation\.pace\.card_s: 0 s between cards is "
                                          r"inside reader\.dedupe_ms \(1 ms\)"):
        parse_config(tmp_path / "s.yaml", data)


def test_a_serial_reader_needs_a_port_and_a_usable_code_format(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"reader\.port: a serial reader needs its port"):
        parse_config(tmp_path / "s.yaml", {"reader": {"type": "serial"}})
    with pytest.raises(ConfigError, match=r"reader\.code_format: .*named groups"):
        parse_config(tmp_path / "s.yaml", {"reader": {"type": "serial", "port": "/dev/x",
                                                      "code_format": "[A-Z]+"}})
    with pytest.raises(ConfigError, match=r"reader\.cut_code: .*also matches the card format"):
        parse_config(tmp_path / "s.yaml", {"reader": {"type": "serial", "port": "/dev/x",
                                                      "cut_code": "AS"}})
    reader = parse_config(tmp_path / "s.yaml", {"reader": {"type": "serial", "port": "/dev/x",
                                                           "framing": "stx_etx",
                                                           "baud": 115200}}).reader
    r = reader.kind_as(SerialSettings)
    assert (reader.type, r.port, r.framing, r.baud) == ("serial", "/dev/x", "stx_etx", 115200)


def test_a_modem_pin_cut_card_sensor_needs_its_port(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cut_card\.port: a modem_pin sensor needs the port"):
        parse_config(tmp_path / "s.yaml", {"cut_card": {"type": "modem_pin"}})
    with pytest.raises(ConfigError, match=r"cut_card\.pin: 'rts' is not one of"):
        parse_config(tmp_path / "s.yaml", {"cut_card": {"type": "modem_pin", "port": "/dev/x",
                                                        "pin": "rts"}})
    cut = parse_config(tmp_path / "s.yaml", {"cut_card": {"type": "modem_pin", "port": "/dev/x",
                                                          "pin": "dsr",
                                                          "debounce_ms": 5}}).cut_card
    c = cut.kind_as(ModemPinSettings)
    assert (cut.type, c.port, c.pin, c.debounce_ms) == ("modem_pin", "/dev/x", "dsr", 5)


def test_camera_reader_keys() -> None:
    cfg = parse_config(Path("s.yaml"), {"reader": {
        "type": "camera", "source": "/dev/v4l/by-id/usb-cam-video-index0", "decoder": "pyzbar",
        "roi": [400, 200, 480, 240], "agree_frames": 3}, "recording": {"raw": True}})
    r = cfg.reader.kind_as(CameraSettings)
    assert (cfg.reader.type, r.source, r.decoder, r.roi, r.agree_frames) == (
        "camera", "/dev/v4l/by-id/usb-cam-video-index0", "pyzbar", (400, 200, 480, 240), 3)
    assert cfg.recording_raw
    index = parse_config(Path("s.yaml"), {"reader": {"type": "camera", "source": 1}}
                         ).reader.kind_as(CameraSettings)
    assert (index.source, index.decoder, index.roi, index.agree_frames) == (1, "zxing", None, 2)
    assert not parse_config(Path("s.yaml"), {}).recording_raw


CAMERA = {"type": "camera", "source": 0}


@pytest.mark.parametrize(
    ("reader", "message"),
    [
        ({"type": "camera"}, "reader.source: a camera reader needs its source"),
        ({**CAMERA, "source": True}, "reader.source: expected a camera index such as 0"),
        ({**CAMERA, "source": -1}, "reader.source: expected a whole number >= 0"),
        ({**CAMERA, "source": 64}, "reader.source: expected a whole number <= 63"),
        ({**CAMERA, "source": ""}, "reader.source: expected a non-empty text"),
        ({**CAMERA, "source": "cam\n0"}, "reader.source: 'cam\\n0' is not a usable path"),
        ({**CAMERA, "decoder": "zbar"}, "reader.decoder: 'zbar' is not one of: zxing, pyzbar"),
        ({**CAMERA, "roi": [1, 2, 3]}, "reader.roi: expected [x, y, width, height]"),
        ({**CAMERA, "roi": [0, 0, 0, 5]}, "reader.roi: [0, 0, 0, 5] is not a region"),
        ({**CAMERA, "roi": [-1, 0, 5, 5]}, "reader.roi: [-1, 0, 5, 5] is not a region"),
        ({**CAMERA, "roi": [16000, 0, 500, 5]}, "within 16384 pixels"),
        ({**CAMERA, "roi": [0, 0, 5.5, 5]}, "reader.roi: expected [x, y, width, height]"),
        ({**CAMERA, "roi": [True, 0, 5, 5]}, "reader.roi: expected [x, y, width, height]"),
        ({**CAMERA, "agree_frames": 0}, "reader.agree_frames: expected a whole number >= 1"),
        ({**CAMERA, "agree_frames": 31}, "reader.agree_frames: expected a whole number <= 30"),
        ({**CAMERA, "code_format": "(?P<rank>x"}, "reader.code_format"),
    ],
)
def test_bad_camera_keys_name_the_key_and_the_fix(reader: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(Path("s.yaml"), {"reader": reader})
    assert message in str(err.value)


def test_recording_raw_must_be_true_or_false_and_needs_a_recording() -> None:
    with pytest.raises(ConfigError, match=r"recording\.raw: expected true or false, got 1"):
        parse_config(Path("s.yaml"), {"recording": {"raw": 1}})
    with pytest.raises(ConfigError, match=r"recording\.raw: raw traffic is kept beside the "
                       "recording, and recording.dir is null"):
        parse_config(Path("s.yaml"), {"recording": {"raw": True, "dir": None}})


def test_a_kind_the_config_did_not_choose_is_read_for_the_tools() -> None:
    """Every kind's keys are read at load whichever is chosen; a section keeps the chosen
    kind's settings, and ``settings_of`` reads another's (``station watch``: the broker of a
    table with a file outlet; ``station pin``/``ctl``: the web display's file and port)."""
    cfg = parse_config(Path("/x/s.yaml"), {
        "upstream": {"type": "file", "host": "broker.lan", "prefix": "floor"},
        "display": {"type": "console", "port": 9002, "credentials_file": "sup.pins"},
        "reader": {"decoder": "pyzbar"}})
    assert cfg.upstream.kind == FileSettings()
    mqtt = settings_of(cfg, "upstream", "mqtt")
    assert isinstance(mqtt, MqttSettings)
    assert (mqtt.link.host, mqtt.link.prefix) == ("broker.lan", "floor")
    assert cfg.display.kind is None
    assert settings_of(cfg, "display", "web") == WebSettings(
        port=9002, credentials_file=Path("/x/sup.pins"))
    assert settings_of(cfg, "reader", "camera") == CameraSettings(None, "pyzbar")
    assert settings_of(cfg, "reader", "serial") is None  # no port: nothing to open
    assert settings_of(cfg, "upstream", "file") is cfg.upstream.kind


@pytest.mark.parametrize(("upstream", "message"), [
    ({"type": "mqtt", "client_id": "x" * 65}, "upstream.client_id: must be 1-64 characters"),
    ({"type": "mqtt", "prefix": "a/+/b"}, "upstream.prefix: 'a/+/b': use letters"),
    ({"type": "mqtt", "tls": {"cert_file": "c.pem"}},
     "upstream.tls: cert_file and key_file go together"),
    ({"type": "mqtt", "keepalive_s": 1}, "upstream.keepalive_s: must be at least 5, got 1"),
    ({"type": "mqtt", "command_window_s": 0}, "upstream.command_window_s: must be more than 0"),
    ({"type": "mqtt", "command_keys": {"bad name": "k.pem"}},
     "upstream.command_keys.bad name: a key's name is 1-64 letters"),
    # The mqtt keys of a table whose outlet is a file are checked all the same: a typo is one.
    ({"type": "file", "prefix": "a//b"}, "upstream.prefix: 'a//b': use letters"),
])
def test_the_outlets_values_are_checked_at_load(upstream: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(Path("s.yaml"), {"upstream": upstream})
    assert str(err.value).startswith(f"s.yaml: {message}"), str(err.value)
