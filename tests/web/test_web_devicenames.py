"""The device names are declared once (station.web.devicenames): the server inlines them into
the page and the page's script keeps no copy (docs/display.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from station.errors import ConfigError
from station.web import server
from station.web.devicenames import DEVICES, page_names

APP_JS = server.STATIC / "app.js"


def test_the_page_carries_the_declared_names() -> None:
    html = server.page_html().decode()
    m = re.search(r'<script id="device-names" type="application/json">(.*?)</script>', html)
    assert m is not None
    assert json.loads(m[1]) == page_names()
    # Per language tag, from the catalogues (device.<id>): English and Chinese as declared.
    assert {n: (said["en"], said["zh-Hans"]) for n, said in page_names().items()} == DEVICES
    assert page_names()["scanner"]["zh-Hant"] == "讀牌器"


def test_the_script_keeps_no_copy_of_them() -> None:
    js = APP_JS.read_text("utf-8")
    # A name as a string of its own ("读牌器"), not a phrase inside another label's sentence.
    copies = [zh for _, zh in DEVICES.values() if f'"{zh}"' in js]
    assert not copies, f"app.js names devices itself: {copies}; use DEVICE_NAMES"
    assert "DEVICE_NAMES" in js


def test_a_page_without_the_slot_is_refused_by_name(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "index.html").write_text("<html><script src=/static/app.js></script></html>")
    monkeypatch.setattr(server, "STATIC", tmp_path)
    with pytest.raises(ConfigError, match=r"index\.html: no single .*device-names.*reinstall"):
        server.page_html()
