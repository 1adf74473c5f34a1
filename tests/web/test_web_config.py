"""``display:`` keys, and what ``station run`` does with them."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from station.errors import ConfigError
from station.kinds.displays.web import WebSettings
from station.live.config import DisplayConfig, parse_config
from tests import webkit


def test_defaults_keep_the_console() -> None:
    config = parse_config(Path("/x/station.yaml"), {})
    assert config.display == DisplayConfig()
    assert config.display.type == "console"


def test_every_key_is_read_and_the_pin_file_is_next_to_the_config() -> None:
    config = parse_config(Path("/x/station.yaml"), {"display": {
        "type": "web", "host": "::1", "port": 9001, "language": "zh",
        "credentials_file": "keys/sup.pins", "sound": False}})
    # zh is an alias: the config holds the registered BCP 47 tag (docs/configuration.md).
    assert config.display == DisplayConfig("web", WebSettings("::1", 9001, "zh-Hans",
                                                              Path("/x/keys/sup.pins"), False))


@pytest.mark.parametrize(("written", "tag"), [("en", "en"), ("zh", "zh-Hans"),
                                              ("zh-Hans", "zh-Hans"), ("zh-Hant", "zh-Hant"),
                                              ("ZH-hant", "zh-Hant")])
def test_the_language_is_a_bcp47_tag(written: str, tag: str) -> None:
    config = parse_config(Path("/x/station.yaml"), {"display": {"type": "web",
                                                                "language": written}})
    assert config.display.kind.language == tag  # type: ignore[attr-defined]


@pytest.mark.parametrize(("display", "message"), [
    ({"type": "kiosk"}, r"display\.type: 'kiosk' is not one of: console, web, none"),
    ({"port": 0}, r"display\.port: .*a TCP port"),
    ({"port": 70000}, r"display\.port: "),
    ({"language": "fr"}, r"display\.language: 'fr' is not one of: en, zh"),
    ({"language": "zh-TW"}, r"display\.language: 'zh-TW' is not one of: en, zh-Hans, "
                            r"zh-Hant, .*zh \(BCP 47 language tags; zh is zh-Hans\)"),
    ({"sound": "yes"}, r"display\.sound: expected true or false"),
    ({"host": "a b"}, r"display\.host: 'a b' is not an address"),
    ({"credentials_file": ""}, r"display\.credentials_file: expected a non-empty text"),
    ({"pin": "1234"}, r"display\.pin: unknown key"),
])
def test_bad_display_keys_are_named(display: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(Path("station.yaml"), {"display": display})


def run(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", "run", "-c", str(config)],
                          check=False, capture_output=True, text=True, timeout=60,
                          cwd=config.parent,
                          stdin=subprocess.DEVNULL)


def test_a_live_reader_without_the_web_display_is_refused(tmp_path: Path) -> None:
    config = webkit.live_config(tmp_path, "/dev/null")
    data = yaml.safe_load(config.read_text())
    data["display"] = {"type": "console"}
    config.write_text(yaml.safe_dump(data))
    done = run(config)
    assert done.returncode == 2
    assert "a live table needs the dealer's buttons" in done.stderr
    assert "set display.type: web" in done.stderr
    assert not (tmp_path / "journal.sqlite3").exists()


def test_a_port_in_use_is_a_config_error(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path)
    port = yaml.safe_load(config.read_text())["display"]["port"]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        done = run(config)
    assert done.returncode == 2, done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr
