"""The dealer's page in Debian's Chromium against the real server and a real daemon.

One browser for the module; each test starts its own table. The pages are followed
literally: what the banner says to do is done, and the table must then be where it said.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from drivers.sim_serial import PtyScanner
from station.journal import read_journal
from station.table.outputs import Prompt
from tests import webkit
from tests.webkit import PIN, state, table_facts, wait_state, wait_text

GARBLED = [{"kind": "garbled", "card": 20}]


def text(page: Any, selector: str) -> str:
    return str(page.locator(selector).inner_text())


def stations_prompts(journal: Path) -> list[tuple[str, str]]:
    """Every prompt the station issued, by replaying its journal through a fresh station."""
    recording = read_journal(journal)
    station = recording.station()
    prompts = [(station.prompt.text, station.prompt.detail)]
    for event in recording.events:
        prompts += [(o.text, o.detail) for o in station.apply(event) if isinstance(o, Prompt)]
    return prompts


def test_the_page_shows_every_prompt_in_order(tmp_path: Path, page: Any) -> None:
    config = webkit.sim_config(tmp_path, seed=5, card_s=0.01, supervisor="resume")
    # The simulated dealer waits open_betting_s before the first NEW SHOE too: time for the
    # page to connect before anything happens.
    config.write_text(config.read_text().replace("open_betting_s: 0.01", "open_betting_s: 0.6"))
    proc = webkit.start(config)
    try:
        page.goto(webkit.url_of(config))
        proc.wait(60)  # one 1-deck shoe, then the daemon stops by itself
    finally:
        webkit.stop(proc, config)
    got = [(p["text"], p["detail"]) for p in page.evaluate("window.__prompts")]
    want = stations_prompts(tmp_path / "journal.sqlite3")
    assert got == want
    thirds = [p for p in got if "THIRD CARD" in p[0]]
    assert thirds and all(" draws" in detail for _, detail in thirds)
    assert any("BANKER THIRD CARD" in t for t, _ in thirds)
    # The daemon stopped: the page says so rather than showing the last instruction.
    page.wait_for_selector("#offline:not([hidden])", timeout=3000)
    assert text(page, "#offline h1") == "STATION OFFLINE - DO NOT DEAL"


def test_pause_wrong_pin_then_resume_with_two_pages_in_step(
        tmp_path: Path, page: Any, chromium: Any) -> None:
    # Shoe after shoe: with one, the table dealt it out and stopped while the pages, slowed
    # by a loaded machine, were still catching up with the resume (CI found it so).
    config = webkit.sim_config(tmp_path, faults=GARBLED, shoes=None)
    with webkit.running(config):
        base = webkit.url_of(config)
        page.goto(base)
        supervisor = chromium.new_page()
        supervisor.goto(base)
        for p in (page, supervisor):
            wait_text(p, "#pause-todo", "re-scanned as")
        # The reason in plain words: the raw code read stays in the journal and the log.
        reason = text(page, "#pause-reason")
        assert reason == "The card scanner read something that is not a card"
        assert "\\x" not in page.inner_text("body") and "unreadable code" not in reason
        assert state(base)["prompt"]["reason"].startswith("unreadable code")
        assert "resume deals it as the due card" in text(page, "#pause-todo")
        assert text(page, "#pause-choice") == ("supervisor: resume continues the round, "
                                               "void refunds it")
        assert text(supervisor, "#pause-reason") == reason
        # Nothing moves while paused, yet the heartbeat keeps an idle page online.
        supervisor.wait_for_timeout(2500)
        assert supervisor.evaluate("window.__offlineAt") is None
        # A reload mid-round shows the same state at once.
        page.reload()
        wait_text(page, "#pause-reason", reason)
        before = table_facts(state(base))
        # A wrong PIN is refused, says so, and changes nothing.
        supervisor.fill("#pin", "0000")
        supervisor.click("#resume")
        wait_text(supervisor, "#pause-message", "wrong PIN")
        assert table_facts(state(base)) == before
        assert not page.locator("#pause").is_hidden()
        # What the banner says: call the supervisor, who resumes with the PIN.
        supervisor.fill("#pin", PIN)
        supervisor.press("#pin", "Enter")
        for p in (page, supervisor):
            p.wait_for_selector("#pause", state="hidden", timeout=10_000)
        s = state(base)
        assert not s["paused"]
        assert "resumed by alice (web 127.0.0.1)" in s["notices"]
        # The held card was dealt and the round went on, on both pages alike.
        # The pages lag the station a little under load: wait on what they show, not on it.
        wait_state(base, lambda s: s["round"]["no"] >= 4, what="more rounds")
        deadline = time.monotonic() + 30
        while True:
            seen = [{p["seq"]: (p["text"], p["detail"]) for p in x.evaluate("window.__prompts")}
                    for x in (page, supervisor)]
            common = seen[0].keys() & seen[1].keys()
            if len(common) > 10 or time.monotonic() > deadline:
                break
            page.wait_for_timeout(100)
        assert len(common) > 10
        assert all(seen[0][k] == seen[1][k] for k in common)
        supervisor.close()


def test_void_from_the_page_publishes_the_void(tmp_path: Path, page: Any) -> None:
    config = webkit.sim_config(tmp_path, faults=GARBLED)
    with webkit.running(config):
        base = webkit.url_of(config)
        page.goto(base)
        wait_text(page, "#pause-todo", "re-scanned as")
        round_no = state(base)["round"]["no"]
        page.fill("#pin", PIN)
        # VOID asks first, naming what it refunds; the table is untouched until asked again.
        page.click("#void")
        wait_text(page, "#pause-message",
                  f"VOID round {round_no}? Every bet on it is refunded. Press VOID again")
        page.wait_for_timeout(300)
        assert state(base)["paused"]
        page.click("#void")
        wait_text(page, "#last-result", f"Round {round_no}: VOID")
        assert page.locator("#pause").is_hidden()
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    voids = [r for r in records if r["status"] == "void"]
    assert [r["round"] for r in voids] == [round_no]
    assert "voided by alice" in voids[0]["void_reason"] or voids[0]["void_reason"]


def test_offline_within_2_s_of_a_kill_and_back_without_a_reload(
        tmp_path: Path, page: Any) -> None:
    config = webkit.sim_config(tmp_path, card_s=0.3, supervisor="resume", shoes=None)
    proc = webkit.start(config)
    try:
        page.goto(webkit.url_of(config))
        wait_text(page, "#instruction", "ROUND")
        page.evaluate("window.__marker = 'same page'")
        killed = time.time()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        page.wait_for_selector("#offline:not([hidden])", timeout=5000)
        offline_at = page.evaluate("window.__offlineAt") / 1000.0
        assert offline_at - killed < 2.0
        assert text(page, "#offline h1") == "STATION OFFLINE - DO NOT DEAL"
        assert not page.locator("#table").is_visible()  # no stale instruction shows
        proc = webkit.start(config)
        page.wait_for_selector("#offline", state="hidden", timeout=10_000)
        assert page.evaluate("window.__marker") == "same page"
        assert page.locator("#instruction").is_visible()
        # A station that hangs keeps its connection open but stops talking: the missing
        # heartbeat is enough.
        frozen = time.time()
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            page.wait_for_selector("#offline:not([hidden])", timeout=5000)
            assert page.evaluate("window.__offlineAt") / 1000.0 - frozen < 2.0
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        page.wait_for_selector("#offline", state="hidden", timeout=10_000)
        assert page.evaluate("window.__marker") == "same page"
    finally:
        webkit.stop(proc, config)


def test_a_live_table_run_from_the_page_and_its_keys(tmp_path: Path, page: Any) -> None:
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path)
        with webkit.running(config) as proc:
            base = webkit.url_of(config)
            webkit.wait_reading(proc, pty.path)  # pyserial empties the input at the open
            page.goto(base)
            wait_text(page, "#instruction", "NEW SHOE")
            assert page.locator("button[data-action=open_betting]").is_disabled()
            page.click("button[data-action=new_shoe]")
            wait_text(page, "#instruction", "BURN: draw and show the first card")
            wait_state(base, lambda s: s["devices"] == [{"name": "scanner", "ok": True,
                                                         "reason": ""}], what="scanner")
            pty.send(["5S"])
            wait_text(page, "#instruction", "BURN 5 MORE FACE DOWN")
            pty.send(["KD", "QD", "JD", "TD", "9D"])
            wait_text(page, "#instruction", "ROUND 1: OPEN BETTING")
            page.keyboard.press("o")
            wait_text(page, "#instruction", "ROUND 1: BETTING OPEN")
            page.keyboard.press("n")  # not now: the station says why
            wait_text(page, "#message", "new shoe refused from dealer (key)")
            page.keyboard.press("Enter")  # the one dealer action now: close betting
            wait_text(page, "#instruction", "DEAL PLAYER CARD 1")
            pty.send(["2S", "3S", "3D", "3C"])
            wait_text(page, "#instruction", "DEAL PLAYER THIRD CARD")
            assert text(page, "#detail") == "ROUND 1: player 5 draws"
            assert text(page, "#player .total") == "5"
            assert text(page, "#banker .total") == "6"
            assert page.evaluate("window.__beeps") == ["third_card"]
            pty.send(["9C"])
            wait_text(page, "#instruction", "ROUND 2: OPEN BETTING")
            assert text(page, "#detail") == "round 1: PLAYER 4 BANKER 6, BANKER WINS"
            cards = page.locator("#player .cards .card")
            assert cards.evaluate_all("cs => cs.map(c => c.dataset.code)") == ["2S", "3D", "9C"]
            # Rank and suit symbol, hearts and diamonds red, the suit's letter small.
            assert cards.evaluate_all("cs => cs.map(c => c.textContent)") == [
                "2\u2660S", "3\u2666D", "9\u2663C"]
            assert cards.evaluate_all("cs => cs.map(c => c.classList.contains('red'))") == [
                False, True, False]
            wait_text(page, "#last-result", "Round 1: PLAYER 4 BANKER 6, BANKER WINS")
            assert page.locator("#roads img").is_visible()


SHOTS = [f"{lang}-{state}-{w}x{h}.png" for lang in ("en", "zh")
         for state in ("betting-open", "third-card", "paused", "offline", "squeeze-reveal",
                       "vip-countdown")
         for w, h in ((1920, 1080), (1280, 800))]


@pytest.mark.parametrize("name", SHOTS)
def test_the_docs_screenshots_are_there(name: str) -> None:
    """scripts/screenshots.py writes them; docs/display.md shows them."""
    data = (webkit.ROOT / "docs" / "display" / name).read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert f"{width}x{height}" in name
    assert f"display/{name}" in (webkit.ROOT / "docs" / "display.md").read_text()
