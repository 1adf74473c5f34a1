"""The page's promises about keys, sounds and a station it never reached (docs/display.md),
in Debian's Chromium against a real station."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tests import webkit
from tests.webkit import state, table_facts, wait_text

GARBLED = [{"kind": "garbled", "card": 20}]


def commands_sent(page: Any) -> list[str]:
    """Every command request the page makes from now on."""
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/api/commands/" in r.url else None)
    return sent


def muted(page: Any) -> Any:
    return page.evaluate("localStorage.getItem('station.muted')")


def test_keys_in_the_pin_field_type_the_pin_and_m_mutes_a_pause(
        tmp_path: Path, page: Any) -> None:
    config = webkit.sim_config(tmp_path, faults=GARBLED)
    with webkit.running(config):
        base = webkit.url_of(config)
        page.goto(base)
        wait_text(page, "#pause-todo", "re-scanned as")
        assert page.evaluate("window.__beeps")[-1:] == ["pause"]  # three low tones
        before = table_facts(state(base))
        sent = commands_sent(page)
        page.focus("#pin")
        for key in ("o", "m", "n", "c"):
            page.keyboard.press(key)
        assert page.input_value("#pin") == "omnc"  # a badge reader's letters are the PIN's
        page.wait_for_timeout(300)
        assert sent == [] and muted(page) is None
        assert table_facts(state(base)) == before
        # Out of the field, M mutes while paused (the pause's tones can be silenced); the
        # dealer's keys still do nothing.
        page.evaluate("document.activeElement.blur()")
        page.keyboard.press("o")
        page.keyboard.press("m")
        assert muted(page) == "1"
        assert page.inner_text("#mute") == "MUTED (M)"
        page.wait_for_timeout(300)
        assert sent == []
        assert table_facts(state(base)) == before


def test_keys_do_nothing_while_offline(tmp_path: Path, page: Any) -> None:
    config = webkit.sim_config(tmp_path, card_s=0.3, supervisor="resume", shoes=None)
    proc = webkit.start(config)
    try:
        page.goto(webkit.url_of(config))
        wait_text(page, "#instruction", "ROUND")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        page.wait_for_selector("#offline:not([hidden])", timeout=5000)
        sent = commands_sent(page)
        for key in ("m", "o", "n", "c", "Enter", " "):
            page.keyboard.press(key)
        page.wait_for_timeout(300)
        assert sent == [] and muted(page) is None
    finally:
        webkit.stop(proc, config)


def test_sound_false_makes_no_sound(tmp_path: Path, page: Any) -> None:
    config = webkit.sim_config(tmp_path, faults=GARBLED, sound=False)
    with webkit.running(config):
        page.goto(webkit.url_of(config))
        wait_text(page, "#pause-todo", "re-scanned as")
        page.wait_for_timeout(300)
        assert page.evaluate("window.__beeps") == []


@pytest.mark.parametrize("how", ["abort", "hang"])
def test_a_page_that_never_reached_the_station_says_offline(
        tmp_path: Path, page: Any, how: str) -> None:
    config = webkit.sim_config(tmp_path)
    held: list[Any] = []
    with webkit.running(config):
        # The page itself loads; its events never come: refused at once, or never answered.
        def never_answer(route: Any) -> None:
            held.append(route)  # a bound builtin cannot be Playwright's handler

        page.route("**/api/events", (lambda r: r.abort()) if how == "abort" else never_answer)
        page.goto(webkit.url_of(config), wait_until="domcontentloaded")
        page.wait_for_selector("#offline:not([hidden])", timeout=2500)
        assert page.inner_text("#offline h1") == "STATION OFFLINE - DO NOT DEAL"
        assert page.evaluate("window.__offlineAt - performance.timeOrigin") < 2500
        assert not page.locator("#table").is_visible()
        page.unroute("**/api/events")
