"""After a restart the page's results and roads go on from the shoe's start, not from the
restart: seeded from the rounds recovery replays (station/journal/recovery.py ``shoe_rounds``)."""

# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation
from __future__ import annotations

import os
import signal
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.events import Command
from station.journal import Journal
from station.journal.recovery import recover
from station.table.station import Station
from station.web.display import WebDisplay
from station.web.hub import Hub
from station.web.view import ShoeHistory, Surroundings
from tests import webkit
from tests.tablekit import Table
from tests.web.test_web_words import english_left
from tests.webkit import PIN, state, wait_state

T0 = 1_800_000_000.0


def table_with(steps: str) -> Table:
    """A table dealt by ``steps``: ``s`` a new shoe and its burn, ``r`` a round (player 6
    and banker 7 stand: banker wins), ``v`` a round voided mid-way, ``m`` a round begun,
    ``e`` the shoe ended."""
    t = Table(decks=8)
    for step in steps:
        if step == "s":
            t.new_shoe()
        elif step == "r":
            t.round("2S", "3S", "4S", "4D")
        elif step == "v":
            t.round("2S", "3S")
            t.card("??")
            t.cmd("void")
        elif step == "m":
            t.round("2S")
        elif step == "e":
            t.cmd("end_shoe")
    return t


def journal_of(t: Table, path: Path) -> Journal:
    journal = Journal.create(path, t.station.rules, None, t.station.session)
    for i, ev in enumerate(t.events):
        journal.append(ev, T0 + i, 1000.0 + i)
    return journal


def shoe_records(t: Table) -> list[dict[str, Any]]:
    shoe = t.station.dealing.shoe
    return [r for r in t.records if shoe is not None and r["shoe"] == shoe.shoe_id]


@pytest.mark.parametrize("steps", ["", "s", "srr", "srrvrm", "srrm", "srre", "srresm",
                                   "srres", "srvre", "srresrvrrm"])
def test_recovery_keeps_the_rounds_of_the_shoe_in_play(tmp_path: Path, steps: str) -> None:
    t = table_with(steps)
    with journal_of(t, tmp_path / "j.sqlite3") as journal:
        rec = recover(journal)
    assert rec.shoe_rounds == shoe_records(t)
    if "r" in steps.rsplit("s", 1)[-1]:
        assert rec.shoe_rounds, "the test deals no round in the last shoe"
    # What recovery rebuilds for the station is what a plain replay rebuilds.
    plain = Station(t.station.rules)
    for ev in t.events:
        plain.apply(ev)
    assert rec.station.prompt == plain.prompt == t.station.prompt
    assert rec.station.dealing.published_keys == plain.dealing.published_keys


def test_the_page_after_a_restart_shows_what_it_showed_before(tmp_path: Path) -> None:
    """The display seeded with the recovered rounds builds the same results and roads as the
    display that followed the shoe live, and a round after the restart goes on from them."""
    t = table_with("srrvrrm")
    around = Surroundings("t1", "en", True, "file", None, ())
    live = ShoeHistory()
    live.add(t.outputs)
    with journal_of(t, tmp_path / "j.sqlite3") as journal:
        rec = recover(journal)
    restarted = WebDisplay(rec.station, Hub(), around, rounds=rec.shoe_rounds)
    assert restarted.history.records == live.records
    assert restarted.history.svg == live.svg
    assert [r["round"] for r in restarted.view["results"]] == [1, 2, 3, 4, 5]
    out = rec.station.apply(Command("void", "supervisor:test", T0 + 10_000))
    restarted.show(out)
    live.add(out)
    assert [r["round"] for r in restarted.view["results"]] == [1, 2, 3, 4, 5, 6]
    assert restarted.history.svg == live.svg


# --- a real daemon killed with -9, and the page in a browser ------------------------------
@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with webkit.browser() as b:
        yield b


def roads_svg(base: str) -> bytes:
    with urllib.request.urlopen(base + "/api/roads.svg", timeout=15) as resp:
        body: bytes = resp.read()
    return body


def page_facts(page: Any) -> dict[str, Any]:
    """What the page itself shows: its last result and the roads image it loaded (the roads
    hold every round of the shoe; the page lists no results beside them)."""
    facts: dict[str, Any] = page.evaluate("""async () => {
        const img = document.querySelector('#roads img');
        const svg = img ? await (await fetch(img.src)).text() : null;
        return {last: document.querySelector('#last-result').innerText,
                loaded: !!img && img.complete && img.naturalWidth > 0, svg};
    }""")
    return facts


def last_result_zh(r: dict[str, Any]) -> str:
    if r["status"] == "void":
        return f"第{r['round']}局：作废"
    head = {"player": "闲赢", "banker": "庄赢", "tie": "和局"}[r["winner"]]
    return (f"第{r['round']}局：闲 {r['player_total']} 点 庄 {r['banker_total']} 点，{head}"
            + ("（例牌）" if r.get("natural") else ""))


def test_kill_9_and_restart_keeps_the_shoes_results_and_roads(
        tmp_path: Path, chromium: Any) -> None:
    # Two unreadable cards (each a pause); the first is voided from the API, the second
    # stays paused, so nothing moves while the station is killed and started again.
    config = webkit.sim_config(tmp_path, seed=7, language="zh", faults=[
        {"kind": "garbled", "card": 20}, {"kind": "garbled", "card": 38}])
    base = webkit.url_of(config)
    page = chromium.new_page(viewport={"width": 1280, "height": 800})
    proc = webkit.start(config)
    try:
        page.goto(base)
        wait_state(base, lambda s: "re-scanned as" in s["prompt"].get("todo", ""), what="pause 1")
        assert webkit.command(base, "void", pin=PIN)[0] == 200
        before = wait_state(base, lambda s: s["paused"] and "re-scanned as"
                            in s["prompt"].get("todo", "") and len(s["results"]) >= 4,
                            what="pause 2")
        statuses = [r["status"] for r in before["results"]]
        assert "void" in statuses and statuses.count("complete") >= 3, before["results"]
        svg = roads_svg(base)
        page.wait_for_function("v => document.querySelector('#roads img') && document"
                               ".querySelector('#roads img').src.includes('v=' + v + '&')",
                               arg=before["roads_version"], timeout=10_000)
        shown = page_facts(page)
        # The page's roads are drawn to its panel's size, from the same rounds.
        src = page.evaluate("document.querySelector('#roads img').src")
        assert "&w=" in src and "&lang=zh" in src
        with urllib.request.urlopen(src, timeout=15) as resp:
            assert shown["loaded"] and shown["svg"].encode() == resp.read()
        assert "珠盘路" in shown["svg"] and "Bead Plate" not in shown["svg"]
        assert shown["last"] == last_result_zh(before["results"][-1])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        page.wait_for_selector("#offline:not([hidden])", timeout=5000)
        proc = webkit.start(config)
        after = wait_state(base, lambda s: "station restarted mid-round"
                           in s["prompt"]["reason"], what="the restart's pause")
        assert after["results"] == before["results"]
        assert roads_svg(base) == svg
        # The page came back by itself and shows the same results and roads as before.
        page.wait_for_selector("#offline", state="hidden", timeout=10_000)
        page.wait_for_function("() => document.querySelector('#pause-reason').textContent"
                               ".includes('工作站在牌局中途重启')", timeout=10_000)
        page.wait_for_function("v => document.querySelector('#roads img').src"
                               ".includes('v=' + v + '&')", arg=state(base)["roads_version"],
                               timeout=10_000)
        page.wait_for_function("() => document.querySelector('#roads img').complete",
                               timeout=10_000)
        again = page_facts(page)
        assert again == shown
        # The restart's pause reads in Chinese on the page, in plain words: the read's raw
        # code stays in the journal, never on the page.
        reason = str(page.locator("#pause-reason").inner_text())
        assert reason.endswith("工作站在牌局中途重启"), reason
        assert "读牌器读到的不是牌" in reason, reason
        assert not english_left(reason, []), reason
        assert "\\x15" not in page.inner_text("body")
    finally:
        page.close()
        webkit.stop(proc, config)
