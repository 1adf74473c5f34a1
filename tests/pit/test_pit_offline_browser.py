"""An offline table, for real: ``station fleet`` (one simulated table), the real ``station
pit`` over a real Mosquitto, Chromium; the table's station killed with kill -9, so that the
broker publishes its last will. Its tile says OFFLINE and for how long, marks its phase as
the last known and shows no lag; its page says since when, and its actions are disabled with
the reason; a command to it is answered at once that it was not sent, and journaled so
(issue 30, item 4)."""

# ruff: noqa: RUF001 - Chinese text uses full-width punctuation on purpose
from __future__ import annotations

import os
import re
import signal
import sqlite3
from pathlib import Path
from typing import Any

from tests.fleet.fleetkit import Fleet
from tests.pit.pitkit import BOSS, Pit, PitFolder, fleet_config
from tests.upstream.broker import Broker, wait_until

TABLE = "t-01"
STATION_ACTIONS = ("resume", "void", "confirm_shuffle", "close_shoe", "pause")


def page_of(chromium: Any, url: str, size: tuple[int, int]) -> Any:
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("window.__renders > 0", timeout=30000)
    return page


def test_an_offline_table_says_so_on_its_tile_its_page_and_to_a_command(
        tmp_path: Path, broker: Broker, chromium: Any) -> None:
    folder = PitFolder(tmp_path / "pit")
    config = fleet_config(tmp_path / "conf", broker.port, folder.public, card_s=0.3)
    fleet = Fleet(config, 1, tmp_path / "fleet")
    pit: Pit | None = None
    try:
        pids = fleet.started(1)
        pit = Pit(folder.config(broker.port, tmp_path / "fleet" / "keys"), folder.port)
        wait_until(lambda: (pit.tile(TABLE) or {}).get("lag_s") is not None, 60,
                   "the table dealing, with its lag", 0.1)
        os.kill(pids[TABLE], signal.SIGKILL)
        wait_until(lambda: (pit.tile(TABLE) or {}).get("online") is False, 60,
                   "the killed table offline", 0.1)
        tile = pit.tile(TABLE)
        assert tile is not None
        alert = pit.alerts(table=TABLE, kind="offline", cleared_at=None)[0]
        assert tile["offline_since"] == alert["raised_at"]
        assert tile["lag_s"] is None and tile["phase"]  # its last known phase is kept

        # The tile: OFFLINE and for how long, ticking in the page; the phase marked last
        # known; no lag figure.
        for lang, off, known, lag in (("en", "OFFLINE", "last known: ", "lag"),
                                      ("zh", "离线", "最后已知：", "延迟")):
            page = page_of(chromium, f"{pit.base}/?lang={lang}", (1366, 768))
            sel = f'#tiles .tile[data-table="{TABLE}"]'
            page.wait_for_selector(sel)
            badge = page.inner_text(f"{sel} .online")
            assert re.fullmatch(rf"{off} \d\d:\d\d", badge), badge
            page.wait_for_function(f"document.querySelector('{sel} .online').textContent"
                                   f" !== {badge!r}", timeout=10000)
            phase = page.inner_text(f"{sel} .phase")
            assert phase.startswith(known), phase
            assert lag not in page.inner_text(sel)
            page.context.close()

        # Its page: since when and for how long; the station's actions disabled, with why.
        for lang, since, why in (("en", "OFFLINE for ", "The table is offline"),
                                 ("zh", "离线 ", "牌桌离线")):
            page = page_of(chromium, f"{pit.base}/tables/{TABLE}?lang={lang}", (1280, 800))
            shown = page.inner_text("#online")
            assert shown.startswith(since) and re.search(r"\d\d:\d\d:\d\d", shown), shown
            # Once: not "OFFLINE · offline" (the need says what the badge says).
            assert shown.count(since.split()[0]) == 1 and "offline" not in shown, shown
            for action in STATION_ACTIONS:
                assert page.is_disabled(f'#actions button[data-action="{action}"]'), action
            assert page.is_enabled('#actions button[data-action="dealer_change"]')
            assert page.inner_text("#actions-why").startswith(why)
            page.context.close()

        # A command to it: answered at once, not sent, and journaled so.
        status, body = pit.act(TABLE, "resume")
        assert status == 200, body
        c = body["command"]
        assert (c["state"], c["detail"]) == ("not_sent", "table offline, not sent")
        assert c["say"]["zh"]["detail"] == "牌桌离线，未发送"
        with sqlite3.connect(f"file:{folder.journal}?mode=ro", uri=True) as db:
            rows = list(db.execute("SELECT action, by, state, detail, payload FROM actions"))
        assert rows == [("resume", BOSS, "not_sent", "table offline, not sent", "")]
        page = page_of(chromium, f"{pit.base}/tables/{TABLE}?lang=en", (1366, 768))
        assert page.inner_text("#answers") == "RESUME (ann): NOT SENT: the table is offline"
        page.context.close()
    finally:
        if pit is not None:
            pit.close()
        fleet.close()
