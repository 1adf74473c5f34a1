"""A pause with the scanner lost after the shoe closed, on the dealer's page in Debian's
Chromium against a real daemon and a real pty scanner (issue 30): RESUME (and VOID, with no
round to void) is shown disabled with the station's reason beside it, never offered green
to be refused, and the header keeps why the shoe ended. At 1920x1080, 1366x768 and
1280x800, in English and Chinese."""

# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from drivers.sim_serial import PtyScanner
from tests import webkit
from tests.webkit import wait_state, wait_text

SIZES = [(1920, 1080), (1366, 768), (1280, 800)]
WORDS = {
    "en": {"why": "RESUME not possible: scanner still lost; reconnect it first",
           "ended": "SHOE ENDED: CUT CARD"},
    "zh": {"why": "无法恢复：读牌器仍断线；请先重新连接", "ended": "牌靴结束：切牌已出"},
}


def fits(page: Any, selector: str) -> bool:
    """Shown whole: not hidden, nothing cut by its own box."""
    return bool(page.evaluate(
        "(s) => { const e = document.querySelector(s); if (!e || e.closest('[hidden]')) "
        "return false; const r = e.getBoundingClientRect(); return r.width > 0 && "
        "e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1 && "
        "r.right <= innerWidth + 1 && r.bottom <= innerHeight + 1; }", selector))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_resume_is_not_offered_while_the_scanner_is_lost(
        tmp_path: Path, chromium: Any, lang: str) -> None:
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path, language=lang)
        cfg = yaml.safe_load(config.read_text())
        cfg["reader"]["cut_code"] = "CUT"
        config.write_text(yaml.safe_dump(cfg))
        with webkit.running(config) as proc:
            base = webkit.url_of(config)
            webkit.wait_reading(proc, pty.path)
            assert webkit.command(base, "new-shoe")[0] == 200
            pty.send(["AS", "2S"])  # the burn: an ace shown, one burned
            wait_state(base, lambda s: s["phase"] == "between_rounds", what="between rounds")
            assert webkit.command(base, "open-betting")[0] == 200
            assert webkit.command(base, "close-betting")[0] == 200
            pty.send(["CUT", "4H", "3C", "5H", "5C"])  # the cut card, then a natural
            wait_state(base, lambda s: s["phase"] == "shoe_closed", what="the shoe closed")
            pty.unplug()
            s = wait_state(base, lambda s: s["paused"], what="the scanner-lost pause")
            assert s["paused_from"] == "shoe_closed" and s["shoe_end"] == "cut_card"
            assert "resume" not in s["actions"] and "void" not in s["actions"]
            assert s["refused_now"] == {"resume": "scanner still lost; reconnect it first",
                                        "void": "scanner still lost; reconnect it first"}
            context = chromium.new_context(viewport={"width": 1920, "height": 1080})
            try:
                page = context.new_page()
                page.goto(base + "/")
                wait_text(page, "#pause-message", WORDS[lang]["why"])
                for w, h in SIZES:
                    page.set_viewport_size({"width": w, "height": h})
                    page.wait_for_timeout(300)  # the page fits its text on resize
                    assert page.locator("#resume").is_disabled()
                    assert page.locator("#void").is_disabled()
                    assert WORDS[lang]["why"] in page.locator("#pause-message").inner_text()
                    assert fits(page, "#pause-message"), (w, h)
                    assert page.locator("#last-round").inner_text() == WORDS[lang]["ended"]
                    assert fits(page, "#last-round"), (w, h)
                    page.screenshot(path=str(tmp_path / f"{lang}-lost-{w}x{h}.png"))
                pty.replug()
                wait_state(base, lambda s: "resume" in s["actions"], what="the scanner back")
                page.wait_for_function(
                    "() => !document.querySelector('#resume').disabled", timeout=15_000)
                assert WORDS[lang]["why"] not in page.locator("#pause-message").inner_text()
                assert page.locator("#last-round").inner_text() == WORDS[lang]["ended"]
            finally:
                context.close()
