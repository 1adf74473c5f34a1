"""The dealer page's procedure controls (issue 22, docs/display.md) in Debian's Chromium
against a real ``station run`` whose scanner is a pty: the shuffle-check screen (a wrong PIN
changes nothing, the right one starts the burn), the dealer's pause from the HOLD button, key
P and a long press of the pedal, each with its code seen in the state and in the journal's
``pause`` message; ``other`` without a note refused by the page before anything is posted; a
pause while paused refused with the station's words; RESUME and VOID from a dealer's pause;
the penetration in the header once the cut card is out. Both languages, one station each."""

# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation
from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from drivers.sim_serial import PtyScanner
from tests import webkit
from tests.modes_replay import replay
from tests.stationkit import STATION
from tests.webkit import state, table_facts, wait_text

NOTE = "a light over the shoe failed"
WORDS = {
    "en": {"check": "SHUFFLE CHECK", "packs": "packs: A1, B2", "wrong": "wrong PIN",
           "burn": "BURN", "need": "OTHER needs a note", "already": "paused already",
           "dropped": "Held by the dealer: card dropped", "other": "Held by the dealer: other",
           "exposed": "Held by the dealer: card exposed",
           "dispute": "Held by the dealer: dispute", "cut": "cut card at 15%",
           "refusal": "CONFIRM SHUFFLE refused: wrong PIN, 4 tries left"},
    "zh": {"check": "洗牌确认", "packs": "牌包：A1, B2", "wrong": "密码错误",
           "burn": "烧牌", "need": "须填写说明", "already": "已暂停",
           "dropped": "荷官暂停：掉牌", "other": "荷官暂停：其他",
           "exposed": "荷官暂停：露牌", "dispute": "荷官暂停：争议", "cut": "切牌位置 15%",
           "refusal": "确认洗牌被拒绝：密码错误，还可尝试 4 次"},
}


def commands_sent(page: Any) -> list[str]:
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/api/commands/" in r.url else None)
    return sent


def phase(base: str, name: str) -> dict[str, Any]:
    return webkit.wait_state(base, lambda s: s["phase"] == name, what=name)


def page_not_paused(page: Any) -> None:
    """Wait until the page has the station's view of the pause cleared: the dealer's keys
    do nothing on a page still showing a pause."""
    page.wait_for_function("() => state && !state.paused && state.actions.includes('pause')",
                           timeout=30_000)


def resume_on_the_page(page: Any, base: str, to: str = "between_rounds") -> None:
    page.fill("#pin", webkit.PIN)
    page.click("#resume")
    phase(base, to)
    page_not_paused(page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_procedure_controls_on_a_live_table(tmp_path: Path, page: Any, lang: str) -> None:
    w = WORDS[lang]
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path, language=lang)
        cfg = yaml.safe_load(config.read_text())
        cfg["table"]["shuffle_check"] = "supervisor"
        cfg["reader"].update(pack_prefix="PK-", cut_code="CUT")
        config.write_text(yaml.safe_dump(cfg))
        base = webkit.url_of(config)
        with webkit.running(config) as proc:
            webkit.wait_reading(proc, pty.path)
            page.goto(base)
            wait_text(page, "#controls button[data-action=new_shoe]", "(N)")
            # --- the shuffle check -------------------------------------------------------
            page.click("#controls button[data-action=new_shoe]")
            wait_text(page, "#instruction", w["check"])
            assert page.is_visible("#shuffle") and page.is_visible("#confirm-shuffle")
            pty.send(["PK-A1", "PK-B2"])
            wait_text(page, "#shuffle-packs", w["packs"])
            before = table_facts(state(base))
            page.fill("#shuffle-pin", "0000")
            page.click("#confirm-shuffle")
            wait_text(page, "#shuffle-message", w["wrong"])
            assert table_facts(state(base)) == before  # nothing changed
            # The message line says it too, in the page's language and plain words: the
            # button's name, never the command's code or the journal's line.
            wait_text(page, "#message", w["refusal"])
            said = page.inner_text("#message")
            assert said == w["refusal"], said
            if lang == "zh":
                assert not re.findall(r"[A-Za-z]", said), said
            page.fill("#shuffle-pin", webkit.PIN)
            page.click("#confirm-shuffle")
            phase(base, "burn_indicator")
            wait_text(page, "#instruction", w["burn"])
            assert page.is_hidden("#shuffle")
            pty.send(["2S", "7D", "8D"])  # a 2 shown, two burned
            phase(base, "between_rounds")
            # --- the HOLD button: OTHER needs a note, refused by the page -----------------
            sent = commands_sent(page)
            before = table_facts(state(base))
            page.click("#controls button[data-action=pause]")
            assert page.is_visible("#picker")
            page.click("#picker .reason[data-code=other]")
            wait_text(page, "#picker-message", w["need"])
            page.wait_for_timeout(300)
            assert sent == [] and table_facts(state(base)) == before
            page.fill("#picker-note", NOTE)
            page.click("#picker .reason[data-code=other]")
            paused = phase(base, "paused")
            assert paused["prompt"]["reason"] == f"held by the dealer: other ({NOTE})"
            assert "pause" not in paused["actions"]
            wait_text(page, "#pause-reason", w["other"])
            assert page.is_hidden("#picker")
            assert page.is_disabled("#controls button[data-action=pause]")
            resume_on_the_page(page, base)
            # --- key P, then 1: card dropped; VOID from a dealer's pause ----------------------
            page.keyboard.press("p")
            page.wait_for_selector("#picker", state="visible")
            page.keyboard.press("Escape")  # closed, nothing sent
            page.wait_for_selector("#picker", state="hidden")
            page.keyboard.press("p")
            page.wait_for_selector("#picker", state="visible")
            page.keyboard.press("1")
            assert phase(base, "paused")["prompt"]["reason"] == "held by the dealer: card dropped"
            wait_text(page, "#pause-reason", w["dropped"])
            page.fill("#pin", webkit.PIN)
            page.click("#void")
            page.click("#void")  # VOID asks first
            phase(base, "between_rounds")
            page_not_paused(page)
            # --- the pedal held a second: the picker; 4: dispute -------------------------------
            page.keyboard.down("Enter")
            page.wait_for_selector("#picker", state="visible", timeout=15_000)
            page.keyboard.up("Enter")
            page.wait_for_timeout(300)
            assert state(base)["phase"] == "between_rounds"  # the long press sent nothing
            page.keyboard.press("4")
            assert phase(base, "paused")["prompt"]["reason"] == "held by the dealer: dispute"
            wait_text(page, "#pause-reason", w["dispute"])
            resume_on_the_page(page, base)
            # --- the pedal pressed short is the one dealer command, as before ---------------
            page.keyboard.press("Enter")
            phase(base, "betting_open")
            page.wait_for_function("() => state.phase === 'betting_open'", timeout=30_000)
            # --- a pause while paused: refused, in the station's words ------------------------
            page.click("#controls button[data-action=pause]")
            assert webkit.command(base, "pause", reason="equipment", actor="bob")[0] == 200
            phase(base, "paused")
            page.click("#picker .reason[data-code=card_exposed]")
            wait_text(page, "#message", w["already"])
            assert state(base)["prompt"]["reason"] == "held by the dealer: equipment problem"
            resume_on_the_page(page, base, "betting_open")
            # --- the cut card out: the penetration in the header ------------------------------
            page.keyboard.press("c")
            phase(base, "player_1")
            # Player 4+9 draws the 5C, banker 3+9 draws; the cut card comes out before the
            # banker's third card: 3 burned and 5 dealt had left the shoe, 8 of 52.
            pty.send(["4H", "3C", "9S", "9H", "5C", "CUT", "KH"])
            shown = phase(base, "shoe_closed")
            assert (shown["shoe"]["cut_card_at"], shown["shoe"]["penetration"]) == (8, 0.1538)
            wait_text(page, "#cut-at", w["cut"])
    exported = tmp_path / "exported.jsonl"
    done = subprocess.run([STATION, "journal", "export", str(tmp_path / "journal.sqlite3"),
                           "--out", str(exported)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    raised = [(m["raised_by"], m["code"], m.get("note"))
              for m in map(orjson.loads, replay(exported)[2])
              if m["kind"] == "pause" and "raised_by" in m]
    assert raised == [("dealer (web 127.0.0.1)", "other", NOTE),
                      ("dealer (web 127.0.0.1)", "card_dropped", None),
                      ("dealer (web 127.0.0.1)", "dispute", None),
                      ("bob (web 127.0.0.1)", "equipment", None)]


def test_number_keys_in_the_picker_choose_and_never_type_into_the_note(
        tmp_path: Path, page: Any) -> None:
    """Key 6 (OTHER) with no note asks for one and leaves the note alone: the following keys
    still choose (1: card dropped), and the pause published has no note (issue 30, item 12).
    The note takes keys only once the dealer opens it."""
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path)
        base = webkit.url_of(config)
        with webkit.running(config) as proc:
            webkit.wait_reading(proc, pty.path)
            page.goto(base)
            wait_text(page, "#instruction", "NEW SHOE")
            page_not_paused(page)
            sent = commands_sent(page)
            page.keyboard.press("p")
            page.wait_for_selector("#picker", state="visible")
            page.keyboard.press("6")
            wait_text(page, "#picker-message", WORDS["en"]["need"])
            assert page.input_value("#picker-note") == ""
            assert page.evaluate("document.activeElement.id") != "picker-note"
            page.wait_for_timeout(300)
            assert sent == []  # OTHER without a note: nothing posted
            page.keyboard.press("1")  # a choice, never "61" in the note
            paused = phase(base, "paused")
            assert paused["prompt"]["reason"] == "held by the dealer: card dropped"
            assert len(sent) == 1, sent
            resume_on_the_page(page, base, "no_shoe")
            # Opened by the dealer (clicked), the note takes the keys, 6 among them.
            page.keyboard.press("p")
            page.wait_for_selector("#picker", state="visible")
            page.click("#picker-note")
            page.keyboard.type("6 lights out")
            assert page.input_value("#picker-note") == "6 lights out"
            page.keyboard.press("Enter")  # in the note: OTHER with it
            assert phase(base, "paused")["prompt"]["reason"] == (
                "held by the dealer: other (6 lights out)")
    exported = tmp_path / "exported.jsonl"
    done = subprocess.run([STATION, "journal", "export", str(tmp_path / "journal.sqlite3"),
                           "--out", str(exported)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    raised = [(m["code"], m.get("note")) for m in map(orjson.loads, replay(exported)[2])
              if m["kind"] == "pause" and "raised_by" in m]
    assert raised == [("card_dropped", None), ("other", "6 lights out")]
