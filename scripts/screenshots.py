"""Rewrite the dealer view's screenshots in docs/display/ (docs/display.md).

    .venv/bin/python scripts/screenshots.py

A live table (its scanner a pty this script types into) with the web display, in every
language of ``LANGUAGES`` (English, Simplified and Traditional Chinese), photographed by
Debian's Chromium at 1920x1080, 1366x768 and 1280x800: the supervisor's shuffle check with
two packs scanned, betting open, third card due, paused, the dealer's reason picker and the
dealer's own pause (the cut card out), offline; then the table modes (docs/modes.md): a
squeeze table waiting for the player hand's reveal, a VIP table on the station's countdown,
a VIP header with most to say, and the scanner lost after the shoe closed. Nothing is drawn by hand.
"""

# ruff: noqa: T201 - a script that says what it wrote
from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from drivers.sim_serial import PtyScanner  # noqa: E402
from tests import webkit  # noqa: E402

OUT = ROOT / "docs" / "display"
SIZES = [(1920, 1080), (1366, 768), (1280, 800)]
# The languages photographed, as the config writes them (zh is zh-Hans's alias, and keeps the
# older shots' names), and what each state's shot waits for in that language: words of its
# catalogue, so a shot is never taken before the page says it.
LANGUAGES = ("en", "zh", "zh-Hant")
SHOWS = {
    "en": {"betting": "BETTING OPEN", "third": "THIRD CARD", "paused": "was not due",
           "picker": "WHY", "held": "Held by", "offline": "OFFLINE", "reveal": "REVEAL",
           "asked": "PLAYER ASKED", "lost": "RESUME not possible"},
    "zh": {"betting": "下注中", "third": "补第三张牌", "paused": "不应派出", "picker": "原因",
           "held": "荷官暂停", "offline": "离线", "reveal": "开牌", "asked": "玩家请求新牌靴",
           "lost": "无法恢复"},
    "zh-Hant": {"betting": "下注中", "third": "補牌", "paused": "不應派出", "picker": "原因",
                "held": "荷官暫停", "offline": "離線", "reveal": "開牌", "asked": "玩家要求換牌靴",
                "lost": "未能恢復"},
}
# Three rounds for the roads, then round 4 is photographed.
ROUNDS = [["9S", "8D", "TC", "KH"], ["2S", "3S", "3D", "3C", "9C"], ["6D", "7H", "KS", "QC"]]


def wait(base: str, what: str, check: Any) -> None:
    webkit.wait_state(base, check, timeout_s=20, what=what)


def open_pages(browser: Any, base: str, sizes: list[tuple[int, int]]) -> list[Any]:
    """One page of the table at ``base`` per screen size, each in its own browser context."""
    pages = []
    for width, height in sizes:
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(base)
        pages.append(page)
    return pages


def shoot(pages: list[Any], lang: str, name: str, selector: str, words: str) -> None:
    for page in pages:
        page.wait_for_function(
            "([s, w]) => { const e = document.querySelector(s);"
            " return e && !e.closest('[hidden]') && e.textContent.includes(w); }",
            arg=[selector, words], timeout=20_000)
        page.wait_for_timeout(300)  # the roads image
        size = page.viewport_size
        path = OUT / f"{lang}-{name}-{size['width']}x{size['height']}.png"
        page.screenshot(path=str(path))
        print(f"wrote {path.relative_to(ROOT)}")


def one_language(tmp: Path, lang: str, browser: Any) -> None:
    show = SHOWS[lang]
    with PtyScanner(tmp / "scanner") as pty:
        config = webkit.live_config(tmp, pty.path, language=lang)
        cfg = yaml.safe_load(config.read_text())
        cfg["table"]["shuffle_check"] = "supervisor"
        cfg["reader"].update(pack_prefix="PK-", cut_code="CUT")
        config.write_text(yaml.safe_dump(cfg))
        proc = webkit.start(config)
        base = webkit.url_of(config)
        try:
            pages = open_pages(browser, base, SIZES)
            wait(base, "the scanner", lambda s: all(d["ok"] for d in s["devices"]))
            webkit.command(base, "new-shoe")
            pty.send(["PK-A1", "PK-B2"])  # two packs' seals scanned during the check
            shoot(pages, lang, "shuffle-check", "#shuffle-packs", "B2")
            webkit.command(base, "confirm-shuffle", pin=webkit.PIN, actor="alice")
            wait(base, "the confirmation", lambda s: s["phase"] == "burn_indicator")
            pty.send(["3H", "KD", "QD", "JD"])  # the burn: a 3 shown, 3 face down
            wait(base, "the burn", lambda s: s["phase"] == "between_rounds")
            for cards in ROUNDS:
                webkit.command(base, "open-betting")
                webkit.command(base, "close-betting")
                pty.send(cards)
                wait(base, "the round", lambda s: s["phase"] == "between_rounds")
            webkit.command(base, "open-betting")
            shoot(pages, lang, "betting-open", "#instruction", show["betting"])
            webkit.command(base, "close-betting")
            pty.send(["4S", "5S", "AD", "TS"])  # player 5 draws
            shoot(pages, lang, "third-card", "#instruction", show["third"])
            pty.send(["7C"])  # player 5+7=2; banker 5 draws on a 7
            wait(base, "the banker's third card", lambda s: s["phase"] == "banker_3")
            pty.send(["8H", "4H"])  # the round ends on 8H; 4H is not due
            shoot(pages, lang, "paused", "#pause-reason", show["paused"])
            webkit.command(base, "resume", pin=webkit.PIN, actor="alice")
            wait(base, "the resume", lambda s: s["phase"] == "between_rounds")
            pty.send(["CUT"])  # the cut card out: its place in the header
            wait(base, "the cut card", lambda s: s["shoe"]["cut_card_at"] is not None)
            for page in pages:
                page.click("#controls button[data-action=pause]")
            shoot(pages, lang, "pause-picker", "#picker-title", show["picker"])
            pages[0].click("#picker .reason[data-code=card_dropped]")
            for page in pages[1:]:
                page.click("#picker-cancel")
            shoot(pages, lang, "dealer-pause", "#pause-reason", show["held"])
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            shoot(pages, lang, "offline", "#offline h1", show["offline"])
        finally:
            webkit.stop(proc, config)


def modes(tmp: Path, lang: str, browser: Any) -> None:
    """A squeeze table with its cards face down, and a VIP table's countdown."""
    show = SHOWS[lang]
    for mode, table in (("squeeze", {"mode": "squeeze", "reveal_s": 3600}),
                        ("vip", {"mode": "vip", "betting": "timer", "betting_s": 3600})):
        with PtyScanner(tmp / f"scanner-{mode}") as pty:
            folder = tmp / mode
            folder.mkdir()
            config = webkit.live_config(folder, pty.path, language=lang)
            cfg = yaml.safe_load(config.read_text())
            cfg["table"] = {**cfg.get("table", {}), **table}
            config.write_text(yaml.safe_dump(cfg))
            proc = webkit.start(config)
            base = webkit.url_of(config)
            try:
                pages = open_pages(browser, base, SIZES)
                wait(base, "the scanner", lambda s: all(d["ok"] for d in s["devices"]))
                webkit.command(base, "new-shoe")
                pty.send(["3H", "KD", "QD", "JD"])  # the burn: a 3 shown, 3 face down
                if mode == "vip":
                    wait(base, "betting", lambda s: s["phase"] == "betting_open")
                    for page in pages:  # the player's requests, as a supervisor opens them
                        page.click("#vip-toggle")
                    shoot(pages, lang, "vip-countdown", "#instruction", show["betting"])
                    continue
                wait(base, "the burn", lambda s: s["phase"] == "between_rounds")
                webkit.command(base, "open-betting")
                webkit.command(base, "close-betting")
                pty.send(["4S", "5S", "AD", "TS"])
                wait(base, "the reveal", lambda s: s["phase"] == "reveal")
                shoot(pages, lang, "squeeze-reveal", "#instruction", show["reveal"])
            finally:
                webkit.stop(proc, config)


def vip_asked(tmp: Path, lang: str, browser: Any) -> None:
    """The header with most to say (issue 30): a VIP table whose player asked, mid-deal, for
    a new shoe and for another dealer, the system's reveal waiting; at the three sizes."""
    show = SHOWS[lang]
    with PtyScanner(tmp / "scanner-asked") as pty:
        config = webkit.live_config(tmp, pty.path, language=lang)
        cfg = yaml.safe_load(config.read_text())
        cfg["table"] = {**cfg.get("table", {}), "mode": "vip", "new_shoe_after": 0,
                        "open_cards_s": 3600}
        config.write_text(yaml.safe_dump(cfg))
        proc = webkit.start(config)
        base = webkit.url_of(config)
        try:
            pages = open_pages(browser, base, SIZES)
            wait(base, "the scanner", lambda s: all(d["ok"] for d in s["devices"]))
            webkit.command(base, "sign-in", dealer="D050")
            webkit.command(base, "new-shoe")
            pty.send(["3H", "KD", "QD", "JD"])
            wait(base, "the burn", lambda s: s["phase"] == "between_rounds")
            webkit.command(base, "open-betting")
            webkit.command(base, "close-betting")
            pty.send(["4S", "5S", "AD", "TS"])
            wait(base, "the reveal", lambda s: s["phase"] == "reveal")
            for action in ("request-dealer", "request-new-shoe"):
                webkit.command(base, action, actor="supervisor", pin=webkit.PIN)
            shoot(pages, lang, "vip-asked", "#last-round", show["asked"])
        finally:
            webkit.stop(proc, config)


def scanner_lost(tmp: Path, lang: str, browser: Any) -> None:
    """The scanner lost after the cut card closed the shoe (issue 30): RESUME and VOID are
    not offered, the page says why, the header keeps SHOE ENDED; at the three sizes."""
    show = SHOWS[lang]
    with PtyScanner(tmp / "scanner-lost") as pty:
        config = webkit.live_config(tmp, pty.path, language=lang)
        cfg = yaml.safe_load(config.read_text())
        cfg["reader"]["cut_code"] = "CUT"
        config.write_text(yaml.safe_dump(cfg))
        proc = webkit.start(config)
        base = webkit.url_of(config)
        try:
            pages = open_pages(browser, base, SIZES)
            wait(base, "the scanner", lambda s: all(d["ok"] for d in s["devices"]))
            webkit.command(base, "new-shoe")
            pty.send(["AS", "2S"])  # the burn: an ace shown, one burned
            wait(base, "the burn", lambda s: s["phase"] == "between_rounds")
            webkit.command(base, "open-betting")
            webkit.command(base, "close-betting")
            pty.send(["CUT", "4H", "3C", "5H", "5C"])  # the cut card, then a natural
            wait(base, "the shoe closed", lambda s: s["phase"] == "shoe_closed")
            pty.unplug()
            wait(base, "the scanner-lost pause", lambda s: s["paused"])
            shoot(pages, lang, "scanner-lost", "#pause-message", show["lost"])
        finally:
            webkit.stop(proc, config)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with webkit.browser() as browser:
        for lang in LANGUAGES:
            with tempfile.TemporaryDirectory() as tmp:
                one_language(Path(tmp), lang, browser)
            with tempfile.TemporaryDirectory() as tmp:
                modes(Path(tmp), lang, browser)
            with tempfile.TemporaryDirectory() as tmp:
                vip_asked(Path(tmp), lang, browser)
            with tempfile.TemporaryDirectory() as tmp:
                scanner_lost(Path(tmp), lang, browser)
    return 0


if __name__ == "__main__":
    started = time.monotonic()
    code = main()
    print(f"screenshots: {time.monotonic() - started:.1f} s")
    sys.exit(code)
