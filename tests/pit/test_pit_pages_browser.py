"""The pit's pages in Chromium against the real pit (``station pit``) over a real Mosquitto,
fed a floor of tables whose messages are a simulated station's, signed with each table's key
(tests/pit/pitfloor.py). The pages must show what the API says, in English and Chinese (no
English on the Chinese page but ranks, ids and names), keep every tile's size and clip
nothing at 1920x1080, 1366x768 and 1280x800 with 20 and 60 tables, play a sound for a new
alert, and answer every action a pit boss takes."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.pit.pagekit import iso_now
from tests.pit.pitfloor import Floors, PitFloor, pit_config
from tests.pit.pitkit import BOSS, BOSS_PIN, Pit, PitFolder
from tests.sampling import pick
from tests.upstream.broker import wait_until

# The module's fixture is built once: its tests share one worker (docs/testing.md).
# The floor of 60 tables is built under the suite's load: its setup may take longer than
# the suite's 120 s hang guard (it did under a heavy load), never for ever.
pytestmark = pytest.mark.timeout(300)

VIEWPORTS = [(1920, 1080), (1366, 768), (1280, 800)]
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
# What a Chinese page may show in Latin letters: ids (tables, shoes, dealers, the pit's name,
# alerts' message keys), the other language's link, and the pit boss's name.
IDS = re.compile(r"\bt\d+(?:[-:][\w:.-]*)?|\bD\d+|\bpit-\d+|English|" + BOSS)


@pytest.fixture(scope="module")
def floors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floors]:
    f = Floors(tmp_path_factory.mktemp("pitpages"))
    try:
        for floor in f.floors.values():
            f.calm(floor)
            f.trouble(floor)
        yield f
    finally:
        f.close()


def open_page(chromium: Any, floor: PitFloor, path: str, size: tuple[int, int] = (1280, 800)
              ) -> Any:
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.__errors = []
    page.on("pageerror", lambda e: page.__errors.append(str(e)))
    page.goto(floor.pit.base + path)
    page.wait_for_function("window.__renders > 0", timeout=30000)
    return page


def floor_ready_tiles(page: Any, n: int) -> None:
    page.wait_for_function(f"document.querySelectorAll('#tiles .tile').length === {n}",
                           timeout=30000)


def floor_ready(page: Any, n: int) -> None:
    floor_ready_tiles(page, n)
    page.wait_for_function("document.querySelectorAll('#alert-list .alert').length > 0",
                           timeout=30000)


def shows_round(page: Any, table: str, number: int) -> None:
    page.wait_for_function(f"document.querySelector('.tile[data-table=\"{table}\"] .r1 span')"
                           f".textContent === 'round {number}'", timeout=30000)


def chinese_text_problems(text: str) -> list[str]:
    return LATIN_WORD.findall(IDS.sub("", text))


CLIPPED = """() => {
  // Every element with text of its own whose content is larger than its box.
  const out = [];
  const boxes = ['HTML', 'BODY', 'UL', 'MAIN', 'SECTION', 'ASIDE'];
  const scrolled = ['tiles', 'alert-list', 'answers', 'table-alerts'];
  for (const e of document.querySelectorAll('body *')) {
    if (!e.offsetParent || boxes.includes(e.tagName) || scrolled.includes(e.id)) continue;
    const style = getComputedStyle(e);
    if (style.overflowY === 'auto' || style.overflowX === 'auto') continue;
    if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) {
      out.push(`${e.tagName}#${e.id}.${e.className} ${e.scrollWidth}x${e.scrollHeight} in ` +
               `${e.clientWidth}x${e.clientHeight}: ${e.textContent.slice(0, 60)}`);
    }
  }
  return out;
}"""

BOXES = """() => [...document.querySelectorAll('#tiles .tile')].map(
  (t) => [t.dataset.table, t.offsetWidth, t.offsetHeight])"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_floor_shows_what_the_api_says(floors: Floors, chromium: Any, lang: str) -> None:
    floor = floors.floors[20]
    page = open_page(chromium, floor, f"/?lang={lang}")
    floor_ready(page, 20)
    body = floor.pit.get("/api/tables")
    order = page.eval_on_selector_all("#tiles .tile", "ts => ts.map(t => t.dataset.table)")
    assert order == [t["table"] for t in body["tables"]]
    # Needing first: the paused and offline tables lead.
    assert set(order[:3]) == {"t1", "t2", "t3"}
    for tile in body["tables"]:
        said = tile["say"][lang]
        text = page.inner_text(f'#tiles .tile[data-table="{tile["table"]}"]')
        shown = said["pause"]["reason"] if said["pause"] else said["phase"]
        assert shown in text.replace("\n", " ") or shown[:20] in text, (tile["table"], text)
        assert ("离线" if lang == "zh" else "OFFLINE") in text if tile["online"] is False \
            else True
    alerts = floor.pit.get("/api/alerts")["alerts"]
    shown = page.eval_on_selector_all("#alert-list .alert", "as => as.map(a => +a.dataset.id)")
    assert shown == [a["id"] for a in alerts]
    for a in alerts:
        text = page.inner_text(f'#alert-list .alert[data-id="{a["id"]}"]')
        assert a["say"][lang]["kind"] in text
        assert not a["say"][lang]["detail"] or a["say"][lang]["detail"] in text
    if lang == "zh":
        assert chinese_text_problems(page.inner_text("body")) == []
    assert page.__errors == []
    page.context.close()


@pytest.mark.parametrize(("n", "lang"), [(20, "en"), (60, "zh")])
def test_a_page_asked_without_a_language_gets_the_pits(floors: Floors, chromium: Any, n: int,
                                                       lang: str) -> None:
    floor = floors.floors[n]
    page = open_page(chromium, floor, "/")
    assert page.url.endswith(f"/?lang={lang}")
    assert page.evaluate("document.documentElement.lang") == ("zh-CN" if lang == "zh" else "en")
    page.goto(floor.pit.base + "/tables/t1")
    assert page.url.endswith(f"/tables/t1?lang={lang}")
    page.context.close()


RECTS = """() => [...document.querySelectorAll('#tiles .tile')].map((t) => {
  const r = t.getBoundingClientRect();
  return [t.dataset.table, r.left, r.top, r.right, r.bottom, t.offsetWidth, t.offsetHeight];
})"""
# The floors a pit boss reads at a glance on one screen (issue 30): 20 tables on a laptop's
# screen, 60 on a 1920x1080 one.
FITS = [(20, (1366, 768)), (20, (1280, 800)), (60, (1920, 1080))]


def tiles_outside(page: Any) -> list[Any]:
    w, h = page.evaluate("[innerWidth, innerHeight]")
    return [r for r in page.evaluate(RECTS)
            if r[1] < 0 or r[2] < 0 or r[3] > w + 0.5 or r[4] > h + 0.5]


# Each language at each fit in a long run; in CI each fit once, the languages taking turns.
FIT_CASES = [(lang, n, size) for lang in ("en", "zh") for n, size in FITS]


@pytest.mark.parametrize(("lang", "n", "size"),
                         pick([FIT_CASES[0], FIT_CASES[4], FIT_CASES[2]], FIT_CASES))
def test_the_floor_fits_one_screen_needing_first_and_nothing_is_clipped(
        floors: Floors, chromium: Any, n: int, size: tuple[int, int], lang: str) -> None:
    floor = floors.floors[n]
    page = open_page(chromium, floor, f"/?lang={lang}", size)
    floor_ready(page, n)
    # Every tile on the screen: none outside the window, nothing to scroll to.
    assert tiles_outside(page) == [], (lang, size)
    assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight")
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    assert page.eval_on_selector("#tiles", "b => b.scrollHeight <= b.clientHeight")
    # All of one size, shrunk with the floor; and no text cut.
    assert len({(r[5], r[6]) for r in page.evaluate(RECTS)}) == 1
    assert page.evaluate(CLIPPED) == [], (lang, size)
    # Needing first, as the pit orders them.
    order = page.eval_on_selector_all("#tiles .tile", "ts => ts.map(t => t.dataset.table)")
    body = floor.pit.get("/api/tables")
    assert order == [t["table"] for t in body["tables"]]
    assert set(order[:4]) == {"t1", "t2", "t3", "t4"}
    # How long the paused and the offline tables have been so, on their tiles.
    paused, offline = ("暂停", "离线") if lang == "zh" else ("PAUSED", "OFFLINE")
    for table, word in (("t1", paused), ("t2", paused), ("t3", offline)):
        badge = page.inner_text(f'#tiles .tile[data-table="{table}"] .online')
        assert re.fullmatch(rf"{word} \d\d:\d\d", badge), (table, badge)
    page.context.close()


@pytest.mark.parametrize(("n", "size"), [(20, (1920, 1080)), (60, (1366, 768)),
                                         (60, (1280, 800))])
def test_other_floors_clip_nothing(floors: Floors, chromium: Any, n: int,
                                   size: tuple[int, int]) -> None:
    floor = floors.floors[n]
    for lang in ("en", "zh"):
        page = open_page(chromium, floor, f"/?lang={lang}", size)
        floor_ready(page, n)
        boxes = page.evaluate(RECTS)
        assert len({(r[5], r[6]) for r in boxes}) == 1, boxes[:3]
        assert page.evaluate(CLIPPED) == [], (lang, size)
        # The page itself never scrolls; 60 tiles on a small screen, at their smallest,
        # scroll inside their region.
        assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight")
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        if n == 20:
            assert tiles_outside(page) == []
        page.context.close()


def test_a_table_moving_on_moves_nothing(floors: Floors, chromium: Any) -> None:
    floor = floors.floors[20]
    page = open_page(chromium, floor, "/?lang=en", (1366, 768))
    floor_ready(page, 20)
    # The alert list scrolled down by the pit boss stays where it is too.
    page.eval_on_selector("#alert-list", "l => { l.scrollTop = 400; }")
    page.wait_for_function("window.__idle()", timeout=30000)
    renders = page.evaluate("window.__alertRenders")
    before = page.evaluate("""() => [...document.querySelectorAll('#tiles .tile')].map(
        (t) => [t.dataset.table, t.getBoundingClientRect().x, t.getBoundingClientRect().y])""")
    t, _ = floor.tables[10]
    was = floor.pit.tile(t.id)["round"]  # type: ignore[index]
    shows_round(page, t.id, was)
    floors.publisher.publish(list(t.payloads(floors.shoe, t.sent + 12)))
    assert floors.shoe[t.sent - 1]["round"] != was
    shows_round(page, t.id, floors.shoe[t.sent - 1]["round"])
    # A table moving on does not refetch the alert list; an acknowledgement (elsewhere:
    # the offline table's alert, by the API) does, and the list stays where it was.
    page.wait_for_function("window.__idle()", timeout=30000)
    assert page.evaluate("window.__alertRenders") == renders
    offline = next(a for a in floor.pit.get("/api/alerts")["alerts"]
                   if a["kind"] == "offline" and a["acked_by"] is None)
    status, _ = floor.pit.request("POST", f"/api/alerts/{offline['id']}/ack",
                                  {"name": BOSS, "pin": BOSS_PIN})
    assert status == 200
    page.wait_for_function(f"window.__alertRenders > {renders}", timeout=30000)
    assert page.eval_on_selector("#alert-list", "l => l.scrollTop") == 400
    after = page.evaluate("""() => [...document.querySelectorAll('#tiles .tile')].map(
        (t) => [t.dataset.table, t.getBoundingClientRect().x, t.getBoundingClientRect().y])""")
    assert after == before
    page.context.close()


def test_a_new_alert_sounds_and_is_acknowledged_with_name_and_pin(
        floors: Floors, chromium: Any) -> None:
    floor = floors.floors[20]
    page = open_page(chromium, floor, "/?lang=en")
    floor_ready(page, 20)
    page.click("#sound-enable")
    assert page.is_hidden("#sound-enable") and page.is_visible("#mute")
    t, _ = floor.tables[15]
    floors.publisher.publish(t.dealer_pause(floors.shoe, iso_now()))
    page.wait_for_function("window.__beeps.length > 0", timeout=30000)
    alert = next(a for a in floor.pit.get("/api/alerts")["alerts"]
                 if a["table"] == t.id and a["kind"] == "pause")
    assert page.evaluate("window.__beeps") == [alert["id"]]
    item = f'#alert-list .alert[data-id="{alert["id"]}"]'
    page.wait_for_selector(item)
    assert "dispute" in page.inner_text(item)
    # A wrong PIN is refused and said so; the right one acknowledges.
    page.click(f"{item} button")
    page.fill("#ask-name", BOSS)
    page.fill("#ask-pin", "0000")
    page.click("#ask-send")
    page.wait_for_function("document.querySelector('#ask-answer').textContent.length > 0 && "
                           "!document.querySelector('#ask-answer').textContent.startsWith('sending')")
    assert page.inner_text("#ask-answer").startswith("wrong name or PIN")
    page.fill("#ask-pin", BOSS_PIN)
    page.click("#ask-send")
    page.wait_for_function("document.querySelector('#ask-answer').textContent === 'acknowledged'")
    acked = next(a for a in floor.pit.get("/api/alerts")["alerts"] if a["id"] == alert["id"])
    assert acked["acked_by"] == BOSS
    page.wait_for_function(f"document.querySelector('{item}').textContent"
                           f".includes('acknowledged by {BOSS}')", timeout=30000)
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_table_page_shows_the_pause_and_what_resume_and_void_do(
        floors: Floors, chromium: Any, lang: str) -> None:
    floor = floors.floors[20]
    body = floor.pit.get("/api/tables/t1")
    assert body["pause"] is not None and body["on_resume"] == "resume continues the round"
    page = open_page(chromium, floor, f"/tables/t1?lang={lang}", (1366, 768))
    said = body["say"][lang]
    assert page.inner_text("#pause-reason") == said["pause"]["reason"]
    assert page.inner_text("#on-resume") == said["on_resume"]
    assert page.inner_text("#on-void") == said["on_void"]
    for hand in ("player", "banker"):
        assert page.eval_on_selector_all(f"#{hand}-cards .card", "cs => cs.length") == \
            len(body["cards"][hand]) > 0
    assert page.eval_on_selector_all("#results li", "ls => ls.length") == \
        min(10, len(body["results"]))
    assert page.get_attribute("#roads", "src").startswith("data:image/svg+xml")
    assert page.evaluate(CLIPPED) == []
    if lang == "zh":
        assert chinese_text_problems(page.inner_text("body")) == []
    page.context.close()


def test_every_action_asks_name_and_pin_and_shows_its_answer(floors: Floors,
                                                             chromium: Any) -> None:
    floor = floors.floors[20]
    page = open_page(chromium, floor, "/tables/t2?lang=en", (1280, 800))
    # A void needs a reason: said before anything is sent.
    page.click('#actions button[data-action="void"]')
    assert page.is_visible("#reason-row")
    page.fill("#ask-name", BOSS)
    page.fill("#ask-pin", BOSS_PIN)
    page.click("#ask-send")
    assert page.inner_text("#ask-answer") == "A void needs a reason"
    page.click("#ask-cancel")
    # No station answers for these tables: the pit says it sent the command, and the page
    # says so (never silent), in the dialog and in the list of commands.
    page.click('#actions button[data-action="resume"]')
    assert page.input_value("#ask-name") == BOSS  # remembered; the PIN never is
    page.fill("#ask-pin", BOSS_PIN)
    page.click("#ask-send")
    page.wait_for_function("/SENT|APPLIED|REFUSED/.test("
                           "document.querySelector('#ask-answer').textContent)", timeout=30000)
    assert page.inner_text("#ask-answer").startswith("SENT, NO ANSWER YET")
    page.click("#ask-cancel")
    page.wait_for_function("document.querySelector('#answers').textContent.includes('RESUME')",
                           timeout=30000)
    # The dealer's reason codes for a pause, and a dealer change noted.
    page.click('#actions button[data-action="pause"]')
    codes = page.eval_on_selector_all("#ask-code option", "os => os.map(o => o.value)")
    assert codes == ["card_dropped", "card_exposed", "misdeal", "dispute", "equipment", "other"]
    page.select_option("#ask-code", "other")
    page.fill("#ask-pin", BOSS_PIN)
    page.click("#ask-send")
    assert page.inner_text("#ask-answer") == "OTHER needs a note saying what happened"
    page.click("#ask-cancel")
    page.click('#actions button[data-action="dealer_change"]')
    page.fill("#ask-dealer", "D043")
    page.fill("#ask-note", "the VIP asked")
    page.fill("#ask-pin", BOSS_PIN)
    page.click("#ask-send")
    page.wait_for_function("document.querySelector('#ask-answer').textContent === "
                           "'noted in the pit\\'s journal'", timeout=30000)
    page.context.close()


def test_the_page_notices_a_silent_or_closed_stream_and_reconnects(
        floors: Floors, chromium: Any, tmp_path: Path) -> None:
    # A pit of its own on the floor of 20 (the shared ones keep running for the others).
    floor = floors.floors[20]
    folder = PitFolder(tmp_path / "own")
    config = pit_config(folder, floors.broker.port, floor.keys, name="pit-own",
                        prefix=floor.prefix)
    own = PitFloor("pit-own", floor.prefix, Pit(config, folder.port), folder, config, floor.keys,
                   floor.tables)
    try:
        page = open_page(chromium, own, "/?lang=en")
        floor_ready_tiles(page, 20)
        assert page.inner_text("#conn") == "LIVE"
        # Silent: the pit stops answering without closing anything (a lost network looks the
        # same); the page's watchdog gives the stream up and says so.
        os.kill(own.pit.proc.pid, signal.SIGSTOP)
        try:
            page.wait_for_function("window.__drops > 0", timeout=60000)
            assert page.inner_text("#conn") == "RECONNECTING"
        finally:
            os.kill(own.pit.proc.pid, signal.SIGCONT)
        page.wait_for_function("document.querySelector('#conn').textContent === 'LIVE'",
                               timeout=60000)
        # Closed: the pit restarts; the page reconnects by itself and is live again.
        drops = page.evaluate("window.__drops")
        own.restart()
        page.wait_for_function(f"window.__drops > {drops}", timeout=60000)
        page.wait_for_function("document.querySelector('#conn').textContent === 'LIVE'",
                               timeout=60000)
        t, _ = floor.tables[12]
        floors.publisher.publish(list(t.payloads(floors.shoe, t.sent + 12)))
        shows_round(page, t.id, floors.shoe[t.sent - 1]["round"])
        page.context.close()
    finally:
        own.pit.close()


@pytest.mark.parametrize(("lang", "said"), [("en", "NO ANSWER after 2 s"),
                                             ("zh", "2 秒内无应答")])
def test_a_command_no_table_answers_says_so_after_the_pits_wait(
        floors: Floors, chromium: Any, tmp_path: Path, lang: str, said: str) -> None:
    # A pit of its own (pit.answer_timeout_s: 2) on the floor of 20, whose tables are the
    # test's publisher: none of them ever answers a command.
    floor = floors.floors[20]
    folder = PitFolder(tmp_path / "own")
    config = pit_config(folder, floors.broker.port, floor.keys, name="pit-wait",
                        prefix=floor.prefix, extra=", answer_timeout_s: 2")
    own = PitFloor("pit-wait", floor.prefix, Pit(config, folder.port), folder, config,
                   floor.keys, floor.tables)
    try:
        wait_until(lambda: (own.pit.tile("t5") or {}).get("online") is True, 60,
                   "t5 online on the pit of its own", 0.1)
        page = open_page(chromium, own, f"/tables/t5?lang={lang}", (1366, 768))
        page.click('#actions button[data-action="resume"]')
        page.fill("#ask-name", BOSS)
        page.fill("#ask-pin", BOSS_PIN)
        page.click("#ask-send")
        # The dialog, then the list of commands, turn from "sent" to "no answer".
        page.wait_for_function(f"document.querySelector('#ask-answer').textContent === {said!r}",
                               timeout=30000)
        page.wait_for_function(f"document.querySelector('#answers').textContent.endsWith("
                               f"{said!r})", timeout=30000)
        command = own.pit.get("/api/tables/t5")["commands"][0]
        assert (command["state"], command["detail"], command["after_s"]) == \
            ("unanswered", "no answer after 2 s", 2.0)
        with sqlite3.connect(f"file:{folder.journal}?mode=ro", uri=True) as db:
            rows = list(db.execute("SELECT id, state, detail, answered_at FROM actions"))
        assert [r[:3] for r in rows] == [(command["id"], "unanswered", "no answer after 2 s")]
        assert rows[0][3] is not None
        assert page.evaluate(CLIPPED) == []
        page.context.close()
    finally:
        own.pit.close()
