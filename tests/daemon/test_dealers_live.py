"""Dealers through the real daemon (docs/dealers.md): the simulated table's badges reach
upstream as ``dealer`` messages and on every round; a live table's scanner, the page's API,
``station ctl`` and the page itself sign dealers in and out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from drivers.events import CardRead, Command
from drivers.sim_serial import PtyScanner
from station.journal import read_journal
from station.wire.schema import validate
from tests import webkit
from tests.stationkit import finish, first_by_key, start, table_config, write_key
from tests.webkit import wait_state, wait_text


def test_the_simulated_dealers_go_upstream_and_on_every_round(tmp_path: Path) -> None:
    key, _ = write_key(tmp_path)
    upstream = {"type": "file", "path": str(tmp_path / "upstream.jsonl"),
                "signing_key_file": str(key)}
    config = table_config(tmp_path, seed=11, upstream=upstream, shoes=3,
                          dealer_badge="DEALER-D042", relief_badge="DEALER-D043",
                          dealer_change_shoes=2)
    finish(start(config), config)
    raw = (tmp_path / "upstream.jsonl").read_bytes().splitlines()
    for line in raw:
        validate(line)  # the dealer kind and the round's dealer key against their schemas
    messages = first_by_key([json.loads(x) for x in raw])
    dealer = [m for m in messages if m["kind"] == "dealer"]
    assert [(m["action"], m["dealer"], m["previous"], m["how"]) for m in dealer] == [
        ("sign_in", "D042", None, "badge"), ("change", "D043", "D042", "badge")]
    # Every round names the dealer signed in when it was published, as the stream says.
    now: str | None = None
    shoes: dict[str, set[str | None]] = {}
    rounds = 0
    for m in messages:
        if m["kind"] == "dealer":
            now = m["dealer"]
        elif m["kind"] == "round":
            rounds += 1
            assert m["dealer"] == now, m
            shoes.setdefault(m["shoe"], set()).add(m["dealer"])
    assert rounds > 50
    assert list(shoes.values()) == [{"D042"}, {"D042"}, {"D043"}]
    results = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [r["dealer"] for r in results] == [m["dealer"] for m in messages
                                              if m["kind"] == "round"]


def test_a_live_table_badge_api_and_ctl(tmp_path: Path) -> None:
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path)
        base = webkit.url_of(config)
        with webkit.running(config) as proc:
            # The port open, not only the device "ok" (true from the start): pyserial empties
            # the input when it opens the port, and a CI run under load lost the badge so.
            webkit.wait_reading(proc, pty.path)
            wait_state(base, lambda s: s["devices"] == [{"name": "scanner", "ok": True,
                                                         "reason": ""}], what="scanner")
            s = webkit.state(base)
            assert s["dealer"] == {"id": None, "can_sign": True, "when": "",
                                   "change_requested": False, "badges": True}
            pty.send(["DEALER-D042"])  # the badge, through the real serial driver
            wait_state(base, lambda s: s["dealer"]["id"] == "D042", what="badge sign-in")
            status, answer = webkit.command(base, "sign-in", dealer="D043", actor="ann")
            assert status == 200, answer
            assert answer["notices"] == ["dealer change: D042 out, D043 in (display)"]
            assert answer["state"]["dealer"]["id"] == "D043"
            for body, words in (({"dealer": "D 43"}, "dealer must be an id of 1-32"),
                                ({}, "dealer must be an id"),
                                ({"dealer": 7}, "dealer must be an id")):
                status, answer = webkit.command(base, "sign-in", **body)
                assert (status, answer["error"][:len(words)]) == (400, words), answer
            status, answer = webkit.command(base, "new-shoe", dealer="D043")
            assert (status, answer["error"]) == (400, "new_shoe takes no dealer")
            assert webkit.command(base, "new-shoe")[0] == 200
            # The burn: a card is due, so signing is refused and says when.
            status, answer = webkit.command(base, "sign-out")
            assert status == 409, answer
            assert answer["error"].startswith("sign out refused from dealer (web 127.0.0.1): "
                                              "not during the burn")
            assert answer["state"]["dealer"] == {
                "id": "D043", "can_sign": False, "change_requested": False, "badges": True,
                "when": "not during the burn: sign once the burn is done, between rounds, "
                        "or while betting is open"}
            done = ctl("sign-in", "D050", "-c", str(config))
            assert done.returncode == 1, done
            assert "not during the burn" in done.stderr
            pty.send(["AS", "2S"])  # the burn is done: between rounds
            wait_state(base, lambda s: s["phase"] == "between_rounds", what="between rounds")
            done = ctl("sign-in", "D050", "-c", str(config), "--actor", "tech")
            assert (done.returncode, done.stdout) == (
                0, "sign-in: done; dealer change: D043 out, D050 in (display)\n"), done
            done = ctl("sign-out", "-c", str(config))
            assert (done.returncode, done.stdout) == (
                0, "sign-out: done; dealer D050 signed out (display)\n"), done
            done = ctl("sign-out", "-c", str(config))
            assert done.returncode == 1 and "no dealer is signed in" in done.stderr
            done = ctl("sign-in", "-c", str(config))
            assert done.returncode == 2 and "sign-in ID" in done.stderr
            done = ctl("status", "D1", "-c", str(config))
            assert done.returncode == 2
            assert webkit.state(base)["phase"] == "between_rounds"  # never a pause
    journal = read_journal(tmp_path / "journal.sqlite3")
    events = list(journal.events)
    # The first read (the clock check's state is the journal's first record).
    first = next(e for e in events if isinstance(e, CardRead))
    assert first == CardRead("DEALER-D042", "scanner", first.ts)
    signs = [e.actor for e in events if isinstance(e, Command) and e.action == "sign_in"]
    # The refused one too: every command is journaled, taken or not.
    assert signs == ["dealer:D043 ann (web 127.0.0.1)", "dealer:D050 technician (web "
                     "127.0.0.1)", "dealer:D050 tech (web 127.0.0.1)"]


def ctl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", "ctl", *args], check=False,
                          capture_output=True, text=True, timeout=60)


def test_the_page_signs_a_dealer_in_and_out(tmp_path: Path, page: Any) -> None:
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path, language="zh")
        base = webkit.url_of(config)
        with webkit.running(config) as proc:
            page.goto(base)
            wait_text(page, "#dealer-id", "无荷官签到")
            assert page.locator("#sign-out").is_disabled()
            page.fill("#dealer-input", "D042")
            page.click("#sign-in")
            wait_text(page, "#dealer-id", "荷官 D042")
            assert page.input_value("#dealer-input") == ""
            assert webkit.state(base)["dealer"]["id"] == "D042"
            page.click("button[data-action=new_shoe]")
            wait_text(page, "#dealer-when", "烧牌期间不可签到或签退")
            assert page.locator("#sign-in").is_disabled()
            assert page.locator("#sign-out").is_disabled()
            webkit.wait_reading(proc, pty.path)
            pty.send(["AS", "2S"])
            page.wait_for_selector("#sign-out:not([disabled])", timeout=15_000)
            page.click("#sign-out")
            wait_text(page, "#dealer-id", "无荷官签到")
    actors = [e.actor for e in read_journal(tmp_path / "journal.sqlite3").events
              if isinstance(e, Command) and e.action in ("sign_in", "sign_out")]
    assert actors == ["dealer:D042 dealer (web 127.0.0.1)", "dealer (web 127.0.0.1)"]


def test_a_restart_keeps_the_dealer_signed_in(tmp_path: Path) -> None:
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path)
        base = webkit.url_of(config)
        with webkit.running(config) as proc:
            webkit.wait_reading(proc, pty.path)
            pty.send(["DEALER-D042"])
            wait_state(base, lambda s: s["dealer"]["id"] == "D042", what="badge sign-in")
        with webkit.running(config):  # the journal replays the sign-in
            assert webkit.state(base)["dealer"]["id"] == "D042"
            assert webkit.command(base, "sign-out")[0] == 200
