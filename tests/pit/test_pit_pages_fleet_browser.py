"""The table page against a real station: ``station fleet`` (one simulated table that pauses
on a card not due, with no supervisor of its own), the real ``station pit`` over a real
Mosquitto, Chromium. The page shows the station's own pause and its words for what resume
and void do; the pit boss's RESUME from the page reaches the table and the page says
APPLIED; a command the table refuses shows REFUSED with the station's words, in Chinese
too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fleet.fleetkit import Fleet
from tests.pit.pitkit import BOSS, BOSS_PIN, Pit, PitFolder, fleet_config
from tests.upstream.broker import Broker

TABLE = "t-01"
FAULTS = "[{kind: not_due, after_round: 1}]"


def act(page: Any, action: str) -> None:
    page.click(f'#actions button[data-action="{action}"]')
    page.fill("#ask-name", BOSS)
    page.fill("#ask-pin", BOSS_PIN)
    page.click("#ask-send")


def test_the_pit_boss_resumes_a_real_table_from_its_page(
        tmp_path: Path, broker: Broker, chromium: Any) -> None:
    folder = PitFolder(tmp_path / "pit")
    config = fleet_config(tmp_path / "conf", broker.port, folder.public, faults=FAULTS,
                          card_s=0.3)
    fleet = Fleet(config, 1, tmp_path / "fleet")
    pit: Pit | None = None
    try:
        fleet.started(1)
        pit = Pit(folder.config(broker.port, tmp_path / "fleet" / "keys"), folder.port)
        context = chromium.new_context(viewport={"width": 1366, "height": 768})
        page = context.new_page()
        page.goto(f"{pit.base}/tables/{TABLE}?lang=en")
        # The station's own pause, and what its resume and void will do, as the station
        # words them for the phase it paused in.
        page.wait_for_function("document.querySelector('#pause-panel').classList.contains('on')",
                               timeout=90000)
        body = pit.get(f"/api/tables/{TABLE}")
        assert body["pause"] is not None and "not due" in body["pause"]["reason"]
        assert page.inner_text("#on-resume") == body["say"]["en"]["on_resume"]
        assert page.inner_text("#on-resume").startswith("resume")
        act(page, "resume")
        page.wait_for_function("/APPLIED|SENT/.test("
                               "document.querySelector('#ask-answer').textContent)",
                               timeout=30000)
        page.wait_for_function("document.querySelector('#answers').textContent"
                               ".includes('RESUME (ann): APPLIED')", timeout=60000)
        page.wait_for_function("!document.querySelector('#pause-panel').classList"
                               ".contains('on')", timeout=60000)
        context.close()
        # In Chinese: a command the table refuses (no shuffle check is due) says so in the
        # station's words, translated.
        context = chromium.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.goto(f"{pit.base}/tables/{TABLE}?lang=zh")
        act(page, "confirm_shuffle")
        page.wait_for_function("document.querySelector('#answers').textContent"
                               ".includes('被拒绝')", timeout=60000)
        said = page.inner_text("#answers")
        assert "现在不可执行" in said, said
        context.close()
    finally:
        if pit is not None:
            pit.close()
        fleet.close()
